/* SPDX-License-Identifier: MIT */
/*
 * rtsched-fifo-bench: seed 000's FIFO mutex and condvar (RTS_PROTO_FIFO)
 * against glibc (PRIO_NONE mutex, pthread_cond_t) and rts PIP, measured in the
 * same run, as ratios (bench/README.md, "FIFO mutex").
 *
 * Broadcast: N threads wait on one condvar; a broadcaster holding the mutex
 * broadcasts and unlocks. Per N (1, 10, 100, 1000):
 *   bcast       the broadcast call alone (the broadcaster's cost), ns;
 *   last        from before the broadcast until the last waiter holds the
 *               mutex, ns;
 *   sleeps      the waiters' voluntary context switches per wait, from just
 *               before the wait until each holds the mutex (1: it slept once
 *               and was woken once; more: woken only to sleep again on the
 *               mutex, the thundering herd);
 *   syscalls    system calls the broadcaster made in the broadcast call
 *               (perf counter; "-" when it cannot be opened).
 * Hand-over: 8 threads on the machine's CPUs (2 here) lock, spin ~1 us
 * inside, unlock and spin ~1 us outside, for a fixed time per subject:
 *   acquire     time from the lock call to holding the mutex (avg, p99, max);
 *   handover    for acquisitions that waited across a release: from the
 *               previous owner's release to holding it;
 *   fairness    fewest / most acquisitions of one thread.
 * SCHED_OTHER throughout: this compares protocols, not scheduling.
 *
 * Usage: rtsched-fifo-bench [--quick]
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "subjects.h"
#include "syscount.h"
#include "clock_ns.h"

#define MAX_WAITERS 1000
#define HANDOVER_THREADS 8
#define HANDOVER_SAMPLES 200000 /* per thread, at most */
#define SPIN_NS 1000

static void spin_ns(int64_t ns)
{
	int64_t until = clock_ns(CLOCK_MONOTONIC) + ns;
	while (clock_ns(CLOCK_MONOTONIC) < until)
		;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "rtsched-fifo-bench: %s: %s\n", what, strerror(err));
	exit(1);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int64_t median(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return v[n / 2];
}

/* ---- broadcast ------------------------------------------------------------ */

struct bcast {
	struct fb_pair pair;
	int n;
	int ready;      /* waiters inside their wait (under the mutex) */
	int done;       /* waiters that hold the mutex again this round */
	unsigned gen;
	bool stop;
	int64_t last_acquired_ns;
	long sleeps;
};

static void *waiter_main(void *arg)
{
	struct bcast *b = arg;
	int err = fb_lock(&b->pair);
	while (!err && !b->stop) {
		unsigned my_gen = b->gen;
		struct rusage before, after;
		getrusage(RUSAGE_THREAD, &before);
		b->ready++;
		while (!err && b->gen == my_gen && !b->stop)
			err = fb_wait(&b->pair);
		int64_t t = clock_ns(CLOCK_MONOTONIC);
		getrusage(RUSAGE_THREAD, &after);
		b->sleeps += after.ru_nvcsw - before.ru_nvcsw;
		if (t > b->last_acquired_ns)
			b->last_acquired_ns = t;
		b->done++;
	}
	if (err)
		die("waiter", err);
	fb_unlock(&b->pair);
	return NULL;
}

struct bcast_result {
	int64_t bcast_ns, last_ns;
	double sleeps_per_wait;
	double syscalls; /* < 0: not counted */
};

/* Lock the pair once `field` reaches n (polling without the mutex between looks). */
static void lock_when(struct bcast *b, int *field)
{
	for (;;) {
		fb_lock(&b->pair);
		if (*field == b->n)
			return;
		fb_unlock(&b->pair);
		usleep(20);
	}
}

static struct bcast_result run_broadcast(enum fb_subject s, int n, int rounds,
					 struct lb_syscount *sc)
{
	static struct bcast b;
	memset(&b, 0, sizeof(b));
	b.n = n;
	int err = fb_init(&b.pair, s);
	if (err)
		die("init", err);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	static pthread_t threads[MAX_WAITERS];
	for (int i = 0; i < n; i++)
		if ((err = pthread_create(&threads[i], &attr, waiter_main, &b)))
			die("pthread_create", err);
	/* Timed rounds, then as many counted ones: the perf counter's ioctls stay out of the timing. */
	int64_t bcast[rounds], last[rounds];
	long sleeps = 0;
	double syscalls = 0;
	for (int r = 0; r < (sc ? 2 * rounds : rounds); r++) {
		bool counted = r >= rounds;
		lock_when(&b, &b.ready);
		b.ready = b.done = 0;
		b.last_acquired_ns = 0;
		b.sleeps = 0;
		b.gen++;
		if (counted)
			lb_syscount_start(sc);
		int64_t t0 = clock_ns(CLOCK_MONOTONIC);
		err = fb_broadcast(&b.pair);
		int64_t t1 = clock_ns(CLOCK_MONOTONIC);
		if (counted)
			syscalls += (double)lb_syscount_stop(sc);
		if (err)
			die("broadcast", err);
		fb_unlock(&b.pair);
		lock_when(&b, &b.done);
		if (!counted) {
			bcast[r] = t1 - t0;
			last[r] = b.last_acquired_ns - t0;
			sleeps += b.sleeps;
		}
		fb_unlock(&b.pair);
	}
	fb_lock(&b.pair);
	b.stop = true;
	fb_broadcast(&b.pair);
	fb_unlock(&b.pair);
	for (int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	fb_destroy(&b.pair);
	return (struct bcast_result){ median(bcast, rounds), median(last, rounds),
				      (double)sleeps / ((double)n * rounds),
				      sc ? syscalls / rounds : -1 };
}

/* ---- hand-over ------------------------------------------------------------ */

struct handover {
	struct fb_pair pair;
	_Atomic bool stop;
	int64_t last_release_ns; /* under the mutex */
};

struct ho_thread {
	struct handover *h;
	pthread_t thread;
	size_t n_acquire, n_handover;
	long acquisitions;
	int64_t *acquire_ns, *handover_ns;
};

static void *ho_main(void *arg)
{
	struct ho_thread *t = arg;
	struct handover *h = t->h;
	while (!atomic_load_explicit(&h->stop, memory_order_relaxed)) {
		int64_t requested = clock_ns(CLOCK_MONOTONIC);
		int err = fb_lock(&h->pair);
		if (err)
			die("lock", err);
		int64_t acquired = clock_ns(CLOCK_MONOTONIC);
		if (t->n_acquire < HANDOVER_SAMPLES)
			t->acquire_ns[t->n_acquire++] = acquired - requested;
		if (requested < h->last_release_ns && t->n_handover < HANDOVER_SAMPLES)
			t->handover_ns[t->n_handover++] = acquired - h->last_release_ns;
		t->acquisitions++;
		spin_ns(SPIN_NS);
		h->last_release_ns = clock_ns(CLOCK_MONOTONIC);
		fb_unlock(&h->pair);
		spin_ns(SPIN_NS);
	}
	return NULL;
}

struct dist {
	int64_t avg, p99, max;
	size_t n;
};

static struct dist dist_of(int64_t *v, size_t n)
{
	struct dist d = { 0, 0, 0, n };
	if (!n)
		return d;
	qsort(v, n, sizeof(*v), cmp_i64);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += (double)v[i];
	d.avg = (int64_t)(sum / (double)n);
	d.p99 = v[(n * 99) / 100];
	d.max = v[n - 1];
	return d;
}

struct ho_result {
	struct dist acquire, handover;
	long fewest, most;
};

static struct ho_result run_handover(enum fb_subject s, int duration_ms)
{
	static struct handover h;
	static struct ho_thread t[HANDOVER_THREADS];
	memset(&h, 0, sizeof(h));
	int err = fb_init(&h.pair, s);
	if (err)
		die("init", err);
	int64_t *all_acquire = malloc(sizeof(int64_t) * HANDOVER_SAMPLES * HANDOVER_THREADS);
	int64_t *all_handover = malloc(sizeof(int64_t) * HANDOVER_SAMPLES * HANDOVER_THREADS);
	if (!all_acquire || !all_handover)
		die("malloc", ENOMEM);
	for (int i = 0; i < HANDOVER_THREADS; i++) {
		t[i] = (struct ho_thread){ .h = &h,
					   .acquire_ns = all_acquire + (size_t)i * HANDOVER_SAMPLES,
					   .handover_ns = all_handover + (size_t)i * HANDOVER_SAMPLES };
		if ((err = pthread_create(&t[i].thread, NULL, ho_main, &t[i])))
			die("pthread_create", err);
	}
	usleep((useconds_t)duration_ms * 1000);
	atomic_store(&h.stop, true);
	struct ho_result r = { .fewest = -1 };
	size_t na = 0, nh = 0;
	for (int i = 0; i < HANDOVER_THREADS; i++) {
		pthread_join(t[i].thread, NULL);
		memmove(all_acquire + na, t[i].acquire_ns, t[i].n_acquire * sizeof(int64_t));
		na += t[i].n_acquire;
		memmove(all_handover + nh, t[i].handover_ns, t[i].n_handover * sizeof(int64_t));
		nh += t[i].n_handover;
		if (r.fewest < 0 || t[i].acquisitions < r.fewest)
			r.fewest = t[i].acquisitions;
		if (t[i].acquisitions > r.most)
			r.most = t[i].acquisitions;
	}
	r.acquire = dist_of(all_acquire, na);
	r.handover = dist_of(all_handover, nh);
	free(all_acquire);
	free(all_handover);
	fb_destroy(&h.pair);
	return r;
}

/* ---- main ------------------------------------------------------------------- */

static const int waiter_counts[] = { 1, 10, 100, 1000 };
#define NR_COUNTS (int)(sizeof(waiter_counts) / sizeof(waiter_counts[0]))

int main(int argc, char **argv)
{
	bool quick = argc == 2 && strcmp(argv[1], "--quick") == 0;
	if (argc > 2 || (argc == 2 && !quick)) {
		fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
		return 2;
	}
	struct lb_syscount_probe probe;
	struct lb_syscount sc;
	char why[256] = "";
	lb_syscount_probe(&probe);
	bool counting = probe.available && lb_syscount_open(&sc, &probe, why, sizeof(why)) == 0;

	static struct bcast_result br[FB_NR_SUBJECTS][NR_COUNTS];
	printf("Broadcast to N waiters (median of rounds; sleeps per wait: 1 = woken once)\n");
	printf("%-10s %5s %12s %12s %8s %9s\n", "subject", "N", "bcast ns", "last ns", "sleeps",
	       "syscalls");
	for (int k = 0; k < NR_COUNTS; k++) {
		int n = waiter_counts[k];
		if (quick && n > 100)
			continue;
		int rounds = quick ? 3 : n >= 1000 ? 15 : n >= 100 ? 40 : 200;
		for (int s = 0; s < FB_NR_SUBJECTS; s++) {
			struct bcast_result *x = &br[s][k];
			*x = run_broadcast(s, n, rounds, counting ? &sc : NULL);
			char sys[16] = "-";
			if (x->syscalls >= 0)
				snprintf(sys, sizeof(sys), "%.1f", x->syscalls);
			printf("%-10s %5d %12lld %12lld %8.2f %9s\n", fb_subject_label(s), n,
			       (long long)x->bcast_ns, (long long)x->last_ns, x->sleeps_per_wait, sys);
		}
	}
	if (!counting)
		printf("(syscalls not counted: %s)\n", probe.available ? why : probe.reason);

	static struct ho_result hr[FB_NR_SUBJECTS];
	int duration_ms = quick ? 100 : 1000;
	printf("\nHand-over: %d threads, %ld CPUs, %d ms each, ~1 us inside and outside\n",
	       HANDOVER_THREADS, sysconf(_SC_NPROCESSORS_ONLN), duration_ms);
	printf("%-10s %10s %10s %10s %11s %11s %11s %8s %8s\n", "subject", "acq avg", "acq p99",
	       "acq max", "handover", "handov p99", "handovers", "fewest", "most");
	for (int s = 0; s < FB_NR_SUBJECTS; s++) {
		hr[s] = run_handover(s, duration_ms);
		struct ho_result *x = &hr[s];
		printf("%-10s %10lld %10lld %10lld %11lld %11lld %11zu %8ld %8ld\n", fb_subject_label(s),
		       (long long)x->acquire.avg, (long long)x->acquire.p99, (long long)x->acquire.max,
		       (long long)x->handover.avg, (long long)x->handover.p99, x->handover.n,
		       x->fewest, x->most);
	}

	int top = quick ? 2 : NR_COUNTS - 1;
	printf("\nRatios, measured in this run\n");
	for (int s = 0; s < FB_NR_SUBJECTS; s++)
		printf("  broadcast cost, %s, N=%d / N=1: %.2fx%s\n", fb_subject_label(s),
		       waiter_counts[top], (double)br[s][top].bcast_ns / (double)br[s][0].bcast_ns,
		       s == FB_RTS_FIFO ? "  (target <= 2x)" : "");
	printf("  last waiter holds the mutex at N=%d, rts FIFO / glibc: %.2fx, rts FIFO / rts PIP: %.2fx\n",
	       waiter_counts[top], (double)br[FB_RTS_FIFO][top].last_ns / (double)br[FB_GLIBC][top].last_ns,
	       (double)br[FB_RTS_FIFO][top].last_ns / (double)br[FB_RTS_PIP][top].last_ns);
	printf("  hand-over avg, rts FIFO / glibc: %.2fx, rts FIFO / rts PIP: %.2fx\n",
	       (double)hr[FB_RTS_FIFO].handover.avg / (double)hr[FB_GLIBC].handover.avg,
	       (double)hr[FB_RTS_FIFO].handover.avg / (double)hr[FB_RTS_PIP].handover.avg);
	printf("  acquisition p99, rts FIFO / glibc: %.2fx, rts FIFO / rts PIP: %.2fx\n",
	       (double)hr[FB_RTS_FIFO].acquire.p99 / (double)hr[FB_GLIBC].acquire.p99,
	       (double)hr[FB_RTS_FIFO].acquire.p99 / (double)hr[FB_RTS_PIP].acquire.p99);
	printf("  acquisition max, rts FIFO / glibc: %.2fx, rts FIFO / rts PIP: %.2fx\n",
	       (double)hr[FB_RTS_FIFO].acquire.max / (double)hr[FB_GLIBC].acquire.max,
	       (double)hr[FB_RTS_FIFO].acquire.max / (double)hr[FB_RTS_PIP].acquire.max);
	printf("  fairness (fewest / most acquisitions of a thread): rts FIFO %.2f, rts PIP %.2f, glibc %.2f\n",
	       (double)hr[FB_RTS_FIFO].fewest / (double)hr[FB_RTS_FIFO].most,
	       (double)hr[FB_RTS_PIP].fewest / (double)hr[FB_RTS_PIP].most,
	       (double)hr[FB_GLIBC].fewest / (double)hr[FB_GLIBC].most);
	if (counting)
		lb_syscount_close(&sc);
	return 0;
}
