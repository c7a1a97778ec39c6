/* SPDX-License-Identifier: MIT */
/* The mutex + condvar pairs the FIFO benchmark compares, behind one interface. */
#ifndef FIFO_BENCH_SUBJECTS_H
#define FIFO_BENCH_SUBJECTS_H

#include <pthread.h>

#include <rtsched/cond.h>
#include <rtsched/mutex.h>

enum fb_subject { FB_RTS_FIFO, FB_RTS_PIP, FB_GLIBC, FB_NR_SUBJECTS };

struct fb_pair {
	enum fb_subject subject;
	union {
		rts_mutex_t rts;
		pthread_mutex_t glibc;
	} m __attribute__((aligned(64)));
	union {
		rts_cond_t rts;
		pthread_cond_t glibc;
	} c __attribute__((aligned(64)));
};

/* "rts FIFO", "rts PIP", "glibc" (PRIO_NONE mutex, pthread_cond_t). */
const char *fb_subject_label(enum fb_subject s);

/* Every call returns 0 or an error number. */
int fb_init(struct fb_pair *p, enum fb_subject s);
int fb_destroy(struct fb_pair *p);
int fb_lock(struct fb_pair *p);
int fb_unlock(struct fb_pair *p);
int fb_wait(struct fb_pair *p);
int fb_broadcast(struct fb_pair *p);

#endif
