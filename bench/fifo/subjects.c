/* SPDX-License-Identifier: MIT */
#include "subjects.h"

static const char *const labels[FB_NR_SUBJECTS] = {
	[FB_RTS_FIFO] = "rts FIFO",
	[FB_RTS_PIP] = "rts PIP",
	[FB_GLIBC] = "glibc",
};

const char *fb_subject_label(enum fb_subject s)
{
	return labels[s];
}

int fb_init(struct fb_pair *p, enum fb_subject s)
{
	p->subject = s;
	if (s == FB_GLIBC) {
		int ret = pthread_mutex_init(&p->m.glibc, NULL);
		return ret ? ret : pthread_cond_init(&p->c.glibc, NULL);
	}
	rts_mutexattr_t a;
	int ret = rts_mutexattr_init(&a);
	if (ret == 0)
		ret = rts_mutexattr_setprotocol(&a, s == FB_RTS_FIFO ? RTS_PROTO_FIFO : RTS_PROTO_PIP);
	if (ret == 0)
		ret = rts_mutex_init(&p->m.rts, &a);
	rts_mutexattr_destroy(&a);
	return ret ? ret : rts_cond_init(&p->c.rts, NULL);
}

int fb_destroy(struct fb_pair *p)
{
	if (p->subject == FB_GLIBC) {
		pthread_cond_destroy(&p->c.glibc);
		return pthread_mutex_destroy(&p->m.glibc);
	}
	rts_cond_destroy(&p->c.rts);
	return rts_mutex_destroy(&p->m.rts);
}

int fb_lock(struct fb_pair *p)
{
	return p->subject == FB_GLIBC ? pthread_mutex_lock(&p->m.glibc) : rts_mutex_lock(&p->m.rts);
}

int fb_unlock(struct fb_pair *p)
{
	return p->subject == FB_GLIBC ? pthread_mutex_unlock(&p->m.glibc)
				      : rts_mutex_unlock(&p->m.rts);
}

int fb_wait(struct fb_pair *p)
{
	return p->subject == FB_GLIBC ? pthread_cond_wait(&p->c.glibc, &p->m.glibc)
				      : rts_cond_wait(&p->c.rts, &p->m.rts);
}

int fb_broadcast(struct fb_pair *p)
{
	return p->subject == FB_GLIBC ? pthread_cond_broadcast(&p->c.glibc)
				      : rts_cond_broadcast(&p->c.rts);
}
