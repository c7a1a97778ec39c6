/* SPDX-License-Identifier: MIT */
/*
 * Stress, generated from parameter tables (STYLE 16), for NONE, PIP and FIFO:
 *  - mutual exclusion: threads x locks x operations, with lock / trylock /
 *    timedlock mixes; every lock guards a non-atomic counter and an "inside"
 *    flag: the flag is never found set on entry and each counter equals the
 *    acquisitions the threads counted;
 *  - producers / consumers over a bounded queue with two condvars: every
 *    item produced is consumed exactly once, and no wake-up is lost (each wait
 *    is bounded by the run's deadline, so a lost one fails instead of hanging);
 *  - progress: every run finishes before its deadline.
 *
 * Seeds: RTSCHED_SEED=7 or RTSCHED_SEED=1,2,3 (default 1,2,3).
 * Soak: RTSCHED_SOAK=1 (60 s) or RTSCHED_SOAK=<seconds> repeats every case
 * with new seeds for its share of that time (run the binary directly, or give
 * ctest a --timeout above it).
 */
#include "rts_helpers.h"

/* ---- parameters ----------------------------------------------------------- */

struct mutex_params {
	const char *name;
	int proto;
	int threads;
	int locks;
	int ops; /* per thread */
	int pct_trylock;
	int pct_timedlock; /* the rest use rts_mutex_lock */
	int work; /* iterations inside the critical section */
};

static const struct mutex_params mutex_table[] = {
	{ "mutex_none_4t_1l_lock", RTS_PROTO_NONE, 4, 1, 48000, 0, 0, 20 },
	{ "mutex_pip_4t_1l_lock", RTS_PROTO_PIP, 4, 1, 48000, 0, 0, 20 },
	{ "mutex_none_8t_4l_mix", RTS_PROTO_NONE, 8, 4, 24000, 30, 30, 50 },
	{ "mutex_pip_8t_4l_mix", RTS_PROTO_PIP, 8, 4, 24000, 30, 30, 50 },
	{ "mutex_none_3t_2l_trylock", RTS_PROTO_NONE, 3, 2, 48000, 80, 0, 10 },
	{ "mutex_pip_3t_2l_trylock", RTS_PROTO_PIP, 3, 2, 48000, 80, 0, 10 },
	{ "mutex_none_6t_1l_timed", RTS_PROTO_NONE, 6, 1, 24000, 0, 90, 100 },
	{ "mutex_pip_6t_1l_timed", RTS_PROTO_PIP, 6, 1, 24000, 0, 90, 100 },
	{ "mutex_fifo_4t_1l_lock", RTS_PROTO_FIFO, 4, 1, 48000, 0, 0, 20 },
	{ "mutex_fifo_8t_4l_mix", RTS_PROTO_FIFO, 8, 4, 24000, 30, 30, 50 },
	{ "mutex_fifo_3t_2l_trylock", RTS_PROTO_FIFO, 3, 2, 48000, 80, 0, 10 },
	{ "mutex_fifo_6t_1l_timed", RTS_PROTO_FIFO, 6, 1, 24000, 0, 90, 100 },
};

struct queue_params {
	const char *name;
	int proto;
	int producers;
	int consumers;
	int items; /* per producer */
	int capacity;
	int broadcast;     /* producers broadcast instead of signal */
	int short_wait_us; /* consumers wait with this short timeout and retry (0: run deadline) */
};

static const struct queue_params queue_table[] = {
	{ "queue_none_1p_1c_cap1", RTS_PROTO_NONE, 1, 1, 4000, 1, 0, 0 },
	{ "queue_pip_1p_1c_cap1", RTS_PROTO_PIP, 1, 1, 4000, 1, 0, 0 },
	{ "queue_none_3p_3c_cap2", RTS_PROTO_NONE, 3, 3, 1500, 2, 0, 0 },
	{ "queue_pip_3p_3c_cap2", RTS_PROTO_PIP, 3, 3, 1500, 2, 0, 0 },
	{ "queue_none_2p_5c_cap4_bcast", RTS_PROTO_NONE, 2, 5, 1500, 4, 1, 0 },
	{ "queue_pip_2p_5c_cap4_bcast", RTS_PROTO_PIP, 2, 5, 1500, 4, 1, 0 },
	{ "queue_none_4p_4c_cap3_timed", RTS_PROTO_NONE, 4, 4, 1000, 3, 0, 200 },
	{ "queue_pip_4p_4c_cap3_timed", RTS_PROTO_PIP, 4, 4, 1000, 3, 0, 200 },
	{ "queue_fifo_1p_1c_cap1", RTS_PROTO_FIFO, 1, 1, 4000, 1, 0, 0 },
	{ "queue_fifo_3p_3c_cap2", RTS_PROTO_FIFO, 3, 3, 1500, 2, 0, 0 },
	{ "queue_fifo_2p_5c_cap4_bcast", RTS_PROTO_FIFO, 2, 5, 1500, 4, 1, 0 },
	{ "queue_fifo_4p_4c_cap3_timed", RTS_PROTO_FIFO, 4, 4, 1000, 3, 0, 200 },
};

#define N_MUTEX ((int)H_NCASES(mutex_table))
#define N_QUEUE ((int)H_NCASES(queue_table))

/* Work is scaled down under ThreadSanitizer, which is ~10x slower. */
#if H_TSAN
#define SCALE(n) ((n) / 8 + 1)
#else
#define SCALE(n) (n)
#endif

/* ---- seeds and soak -------------------------------------------------------- */

static unsigned seeds[64];
static int nseeds;
static int soak_s;

static void parse_env(void)
{
	const char *s = getenv("RTSCHED_SEED");
	if (!s || !*s)
		s = "1,2,3";
	char *copy = strdup(s), *save = NULL;
	for (char *tok = strtok_r(copy, ",", &save); tok && nseeds < 64;
	     tok = strtok_r(NULL, ",", &save))
		seeds[nseeds++] = (unsigned)strtoul(tok, NULL, 0);
	free(copy);
	if (nseeds == 0)
		seeds[nseeds++] = 1;
	const char *soak = getenv("RTSCHED_SOAK");
	if (soak && *soak && strcmp(soak, "0") != 0) {
		soak_s = atoi(soak);
		if (soak_s <= 1)
			soak_s = 60;
	}
}

static uint32_t rng_next(uint32_t *x)
{
	/* xorshift32 */
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static uint32_t rng_seed(unsigned seed, int id)
{
	uint32_t x = seed * 2654435761u + (uint32_t)id * 40503u + 1u;
	return x ? x : 1;
}

/* ---- mutual exclusion ------------------------------------------------------ */

struct guarded {
	rts_mutex_t m;
	long counter; /* plain: the lock protects it */
	int inside;   /* plain: set while somebody is inside */
} __attribute__((aligned(64)));

struct mutex_run {
	const struct mutex_params *p;
	struct guarded *locks;
	unsigned seed;
	int64_t deadline_ns;
	int violations;
	int errors;
	int first_error;
	int late;
};

struct mutex_worker {
	struct mutex_run *run;
	int id;
	long acquired[8];
	long busy, timeouts;
};

static void note_error(struct mutex_run *run, int err)
{
	if (H_INC(&run->errors) == 1)
		H_STORE(&run->first_error, err);
}

static void *mutex_worker_main(void *arg)
{
	struct mutex_worker *w = arg;
	struct mutex_run *run = w->run;
	const struct mutex_params *p = run->p;
	uint32_t x = rng_seed(run->seed, w->id);
	int ops = SCALE(p->ops);
	for (int i = 0; i < ops; i++) {
		if ((i & 63) == 0 && clock_ns(CLOCK_MONOTONIC) > run->deadline_ns) {
			H_STORE(&run->late, 1);
			return NULL;
		}
		int k = (int)(rng_next(&x) % (uint32_t)p->locks);
		int r = (int)(rng_next(&x) % 100);
		struct guarded *g = &run->locks[k];
		int ret;
		if (r < p->pct_trylock) {
			ret = rts_mutex_trylock(&g->m);
			if (ret == EBUSY) {
				w->busy++;
				continue;
			}
		} else if (r < p->pct_trylock + p->pct_timedlock) {
			uint32_t kind = rng_next(&x) % 4;
			struct timespec dl = kind == 0 ? h_deadline_ms(CLOCK_MONOTONIC, -1)
							: ns_timespec(clock_ns(CLOCK_MONOTONIC) +
								       (int64_t)(kind * 50000));
			ret = rts_mutex_timedlock(&g->m, &dl);
			if (ret == ETIMEDOUT) {
				w->timeouts++;
				continue;
			}
		} else {
			ret = rts_mutex_lock(&g->m);
		}
		if (ret) {
			note_error(run, ret);
			return NULL;
		}
		volatile int *inside = &g->inside;
		if (*inside)
			H_INC(&run->violations);
		*inside = 1;
		long c = g->counter;
		for (int j = 0; j < p->work; j++)
			__asm__ __volatile__("" ::: "memory");
		g->counter = c + 1;
		*inside = 0;
		w->acquired[k]++;
		ret = rts_mutex_unlock(&g->m);
		if (ret) {
			note_error(run, ret);
			return NULL;
		}
	}
	return NULL;
}

static void run_mutex_once(const struct mutex_params *p, unsigned seed)
{
	struct mutex_run run = { .p = p, .seed = seed };
	run.locks = aligned_alloc(64, sizeof(struct guarded) * (size_t)p->locks);
	CHECK(run.locks != NULL);
	memset(run.locks, 0, sizeof(struct guarded) * (size_t)p->locks);
	for (int k = 0; k < p->locks; k++)
		mutex_init_proto(&run.locks[k].m, p->proto);
	run.deadline_ns = clock_ns(CLOCK_MONOTONIC) + 20LL * 1000000000 * H_SLOW;
	struct mutex_worker *w = calloc((size_t)p->threads, sizeof(*w));
	pthread_t *t = calloc((size_t)p->threads, sizeof(*t));
	CHECK(w != NULL && t != NULL);
	for (int i = 0; i < p->threads; i++) {
		w[i].run = &run;
		w[i].id = i;
		h_thread_start(&t[i], mutex_worker_main, &w[i], 0, -1);
	}
	for (int i = 0; i < p->threads; i++)
		h_join(t[i], 30000);
	CHECK_MSG(!run.late, "%s seed %u: no progress before the deadline", p->name, seed);
	CHECK_MSG(run.errors == 0, "%s seed %u: %d lock/unlock errors, first %s", p->name, seed,
		  run.errors, h_errname(run.first_error));
	CHECK_MSG(run.violations == 0, "%s seed %u: %d mutual exclusion violations", p->name,
		  seed, run.violations);
	long total = 0, busy = 0, timeouts = 0;
	for (int k = 0; k < p->locks; k++) {
		long want = 0;
		for (int i = 0; i < p->threads; i++)
			want += w[i].acquired[k];
		CHECK_MSG(run.locks[k].counter == want,
			  "%s seed %u: lock %d counter %ld, but %ld acquisitions (lost updates)",
			  p->name, seed, k, run.locks[k].counter, want);
		CHECK_EQ(mutex_owner(&run.locks[k].m), 0);
		CHECK_OK(rts_mutex_destroy(&run.locks[k].m));
		total += want;
	}
	for (int i = 0; i < p->threads; i++) {
		busy += w[i].busy;
		timeouts += w[i].timeouts;
	}
	CHECK_GT(total, 0);
	H_LOG("%s seed %u: %ld acquisitions, %ld EBUSY, %ld ETIMEDOUT", p->name, seed, total, busy,
	      timeouts);
	free(w);
	free(t);
	free(run.locks);
}

/* ---- producers / consumers ------------------------------------------------- */

#define MAX_CAP 16

struct queue_run {
	const struct queue_params *p;
	rts_mutex_t m;
	rts_cond_t not_full, not_empty;
	int buf[MAX_CAP];
	int head, count;
	int total, consumed;
	unsigned char *seen;
	struct timespec deadline;
	int errors, first_error;
	unsigned seed;
};

struct queue_thread {
	struct queue_run *q;
	int id;
};

static void q_error(struct queue_run *q, int err)
{
	if (H_INC(&q->errors) == 1)
		H_STORE(&q->first_error, err);
}

static void *producer_main(void *arg)
{
	struct queue_thread *th = arg;
	struct queue_run *q = th->q;
	const struct queue_params *p = q->p;
	int items = SCALE(p->items);
	for (int j = 0; j < items; j++) {
		int item = th->id * items + j;
		int ret = rts_mutex_lock(&q->m);
		if (ret) {
			q_error(q, ret);
			return NULL;
		}
		while (q->count == p->capacity && ret == 0)
			ret = rts_cond_timedwait(&q->not_full, &q->m, &q->deadline);
		if (ret) {
			q_error(q, ret == ETIMEDOUT ? -ETIMEDOUT : ret);
			rts_mutex_unlock(&q->m);
			return NULL;
		}
		q->buf[(q->head + q->count) % p->capacity] = item;
		q->count++;
		ret = p->broadcast ? rts_cond_broadcast(&q->not_empty) : rts_cond_signal(&q->not_empty);
		if (ret)
			q_error(q, ret);
		rts_mutex_unlock(&q->m);
	}
	return NULL;
}

static void *consumer_main(void *arg)
{
	struct queue_thread *th = arg;
	struct queue_run *q = th->q;
	const struct queue_params *p = q->p;
	for (;;) {
		int ret = rts_mutex_lock(&q->m);
		if (ret) {
			q_error(q, ret);
			return NULL;
		}
		while (q->count == 0 && q->consumed < q->total) {
			if (p->short_wait_us) {
				struct timespec dl = ns_timespec(clock_ns(CLOCK_MONOTONIC) +
								  p->short_wait_us * 1000LL);
				ret = rts_cond_timedwait(&q->not_empty, &q->m, &dl);
				if (ret == ETIMEDOUT &&
				    clock_ns(CLOCK_MONOTONIC) < timespec_ns(&q->deadline))
					ret = 0;
			} else {
				ret = rts_cond_timedwait(&q->not_empty, &q->m, &q->deadline);
			}
			if (ret) {
				q_error(q, ret == ETIMEDOUT ? -ETIMEDOUT : ret);
				rts_mutex_unlock(&q->m);
				return NULL;
			}
		}
		if (q->consumed == q->total) {
			rts_mutex_unlock(&q->m);
			return NULL;
		}
		int item = q->buf[q->head];
		q->head = (q->head + 1) % p->capacity;
		q->count--;
		q->consumed++;
		if (item >= 0 && item < q->total)
			q->seen[item]++;
		else
			q_error(q, -1000);
		ret = rts_cond_signal(&q->not_full);
		if (ret == 0 && q->consumed == q->total) /* let the other consumers go */
			ret = rts_cond_broadcast(&q->not_empty);
		if (ret)
			q_error(q, ret);
		rts_mutex_unlock(&q->m);
	}
}

static void run_queue_once(const struct queue_params *p, unsigned seed)
{
	struct queue_run *q = aligned_alloc(64, (sizeof(*q) + 63) / 64 * 64);
	CHECK(q != NULL);
	memset(q, 0, sizeof(*q));
	q->p = p;
	q->seed = seed;
	mutex_init_proto(&q->m, p->proto);
	CHECK_OK(rts_cond_init(&q->not_full, NULL));
	CHECK_OK(rts_cond_init(&q->not_empty, NULL));
	q->total = SCALE(p->items) * p->producers;
	q->seen = calloc((size_t)q->total, 1);
	CHECK(q->seen != NULL);
	q->deadline = h_deadline_ms(CLOCK_MONOTONIC, 20000LL * H_SLOW);

	int n = p->producers + p->consumers;
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	struct queue_thread *th = calloc((size_t)n, sizeof(*th));
	CHECK(t != NULL && th != NULL);
	/* Start them in a seed-dependent order. */
	uint32_t x = rng_seed(seed, 99);
	int order[64];
	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)(rng_next(&x) % (uint32_t)(i + 1));
		int tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	for (int k = 0; k < n; k++) {
		int i = order[k];
		th[i].q = q;
		th[i].id = i < p->producers ? i : i - p->producers;
		h_thread_start(&t[i], i < p->producers ? producer_main : consumer_main, &th[i], 0, -1);
	}
	for (int i = 0; i < n; i++)
		h_join(t[i], 30000);
	CHECK_MSG(q->errors == 0, "%s seed %u: %d errors, first %s%s", p->name, seed, q->errors,
		  q->first_error == -ETIMEDOUT ? "ETIMEDOUT at the run's deadline (lost wake-up?)"
					      : h_errname(q->first_error < 0 ? 0 : q->first_error),
		  q->first_error == -1000 ? " (garbage item)" : "");
	CHECK_EQ(q->consumed, q->total);
	CHECK_EQ(q->count, 0);
	for (int i = 0; i < q->total; i++)
		CHECK_MSG(q->seen[i] == 1, "%s seed %u: item %d consumed %d times", p->name, seed, i,
			  q->seen[i]);
	CHECK_EQ(cond_waiters(&q->not_full), 0);
	CHECK_EQ(cond_waiters(&q->not_empty), 0);
	CHECK_OK(rts_cond_destroy(&q->not_full));
	CHECK_OK(rts_cond_destroy(&q->not_empty));
	CHECK_OK(rts_mutex_destroy(&q->m));
	H_LOG("%s seed %u: %d items", p->name, seed, q->total);
	free(q->seen);
	free(q);
	free(t);
	free(th);
}

/* ---- cases ------------------------------------------------------------------ */

static void run_case(int index)
{
	int64_t soak_end = soak_s ? clock_ns(CLOCK_MONOTONIC) +
					    (int64_t)soak_s * 1000000000 / (N_MUTEX + N_QUEUE)
				  : 0;
	unsigned round = 0;
	do {
		for (int s = 0; s < nseeds; s++) {
			unsigned seed = seeds[s] + round * 1000003u;
			if (index < N_MUTEX)
				run_mutex_once(&mutex_table[index], seed);
			else
				run_queue_once(&queue_table[index - N_MUTEX], seed);
		}
		round++;
	} while (soak_s && clock_ns(CLOCK_MONOTONIC) < soak_end);
	if (soak_s)
		printf("  %d soak rounds x %d seeds\n", round, nseeds);
}

int main(int argc, char **argv)
{
	parse_env();
	struct h_case cases[N_MUTEX + N_QUEUE];
	int timeout_ms = 20000 + (soak_s ? soak_s * 1000 / (N_MUTEX + N_QUEUE) : 0);
	for (int i = 0; i < N_MUTEX + N_QUEUE; i++) {
		cases[i] = (struct h_case){
			.name = i < N_MUTEX ? mutex_table[i].name : queue_table[i - N_MUTEX].name,
			.timeout_ms = timeout_ms,
			.fn_arg = run_case,
			.arg = i,
		};
	}
	printf("seeds:");
	for (int s = 0; s < nseeds; s++)
		printf(" %u", seeds[s]);
	printf("%s\n", soak_s ? " (soak)" : "");
	return h_main(argc, argv, cases, H_NCASES(cases));
}
