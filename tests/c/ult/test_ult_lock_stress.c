/* SPDX-License-Identifier: MIT */
/*
 * Many ULTs, locks and condition variables on every CPU this process may
 * use (two here), generated from a table of forms: producers and consumers
 * share a PIP mutex and a condvar (requeue-PI), others contend for a plain
 * (NONE: block / wake) mutex and for a FIFO-ordered global lock (FMLP+:
 * its ticket words; a second PIP mutex under EDF). Every job's waits are bounded (500 ms, against periods
 * of milliseconds), so a lost wake shows as a timeout: none may happen.
 * Mutual exclusion: the counters the mutexes guard end at the number of
 * jobs. Run under ASan+UBSan and TSan by scripts/test-sanitizers.
 */
#include "ult_actors.h"

#define JOBS 40
#define PAIRS 5

struct stress {
	rts_mutex_t pip, plain, fifo;
	rts_cond_t cond;
	int items;          /* under pip */
	long pip_count;     /* under pip */
	long plain_count;   /* under plain */
	long fifo_count;    /* under fifo */
	atomic_int timeouts, errors;
	atomic_int consumed;
};

static void note(struct stress *s, int err)
{
	if (err == ETIMEDOUT)
		atomic_fetch_add(&s->timeouts, 1);
	else if (err)
		atomic_fetch_add(&s->errors, 1);
}

static struct timespec bound(void)
{
	return h_deadline_ms(CLOCK_MONOTONIC, 500);
}

static void producer(struct actor *a)
{
	struct stress *s = a->scene;
	note(s, rts_mutex_lock(&s->pip));
	s->items++;
	s->pip_count++;
	note(s, (s->pip_count % 5) ? rts_cond_signal(&s->cond) : rts_cond_broadcast(&s->cond));
	note(s, rts_mutex_unlock(&s->pip));
	busy_us(100);
	struct timespec b = bound();
	note(s, rts_mutex_timedlock(&s->plain, &b));
	s->plain_count++;
	busy_us(50);
	note(s, rts_mutex_unlock(&s->plain));
}

static void consumer(struct actor *a)
{
	struct stress *s = a->scene;
	note(s, rts_mutex_lock(&s->pip));
	s->pip_count++;
	while (s->items == 0) {
		struct timespec b = bound();
		int err = rts_cond_timedwait(&s->cond, &s->pip, &b);
		note(s, err);
		if (err)
			break;
	}
	if (s->items > 0) {
		s->items--;
		atomic_fetch_add(&s->consumed, 1);
	}
	note(s, rts_mutex_unlock(&s->pip));
	note(s, rts_mutex_lock(&s->fifo));
	s->fifo_count++;
	busy_us(50);
	note(s, rts_mutex_unlock(&s->fifo));
}

static void contender(struct actor *a)
{
	struct stress *s = a->scene;
	struct timespec b = bound();
	note(s, rts_mutex_timedlock(&s->plain, &b));
	s->plain_count++;
	busy_us(80);
	note(s, rts_mutex_unlock(&s->plain));
	note(s, rts_mutex_lock(&s->fifo));
	s->fifo_count++;
	note(s, rts_mutex_unlock(&s->fifo));
}

struct form {
	const char *form;
	unsigned seed;
};

static const struct form forms[] = {
	{"ult:gfp", 1}, {"ult:gfp", 2}, {"ult:gedf", 1}, {"ult:gedf", 2}, {"ult:pfp", 1},
};

static void test_stress(int i)
{
	static struct stress s;
	memset(&s, 0, sizeof(s));
	mutex_of(&s.pip, RTS_PROTO_PIP, 0, 0, -1);
	mutex_of(&s.plain, RTS_PROTO_NONE, 0, 0, -1);
	/* FMLP+ orders by FIFO priority levels: EDF tasks (SCHED_DEADLINE, no
	 * declared level) are refused it (EINVAL), so they contend on PIP */
	bool fp = strstr(forms[i].form, "fp") != NULL;
	mutex_of(&s.fifo, fp ? RTS_PROTO_FMLP : RTS_PROTO_PIP, 0, 0, -1);
	CHECK_OK(rts_cond_init(&s.cond, NULL));
	int cpus[8];
	int n_cpus = allowed_cpus(1, cpus, 8);
	bool partitioned = strstr(forms[i].form, ":p") != NULL;
	static struct actor actors[2 * PAIRS + 2];
	static char names[2 * PAIRS + 2][16];
	unsigned seed = forms[i].seed;
	int n = 0;
	for (int k = 0; k < 2 * PAIRS + 2; k++, n++) {
		seed = seed * 1103515245u + 12345u;
		void (*play)(struct actor *) = k < PAIRS ? producer : k < 2 * PAIRS ? consumer : contender;
		snprintf(names[k], sizeof(names[k]), "%c%d", k < PAIRS ? 'p' : k < 2 * PAIRS ? 'c' : 'x', k);
		actors[k] = (struct actor){
			.name = names[k],
			.priority = 10 + (int)(seed >> 16) % 40,
			.offset_ms = (seed >> 8) % 3,
			.deadline_ms = 2 + (seed >> 20) % 4,
			.period_ms = 3 + (seed >> 12) % 3,
			.jobs = JOBS,
			.cpu = partitioned ? k % n_cpus : -1,
			.play = play,
			.scene = &s,
		};
	}
	run_actors(forms[i].form, actors, n);
	CHECK_EQ(atomic_load(&s.timeouts), 0); /* no lost wake */
	CHECK_EQ(atomic_load(&s.errors), 0);
	CHECK_EQ(s.pip_count, 2L * PAIRS * JOBS);
	CHECK_EQ(s.plain_count, (long)(PAIRS + 2) * JOBS);
	CHECK_EQ(s.fifo_count, (long)(PAIRS + 2) * JOBS);
	CHECK_EQ(atomic_load(&s.consumed), PAIRS * JOBS);
	CHECK_EQ(s.items, 0);
	for (int k = 0; k < n; k++)
		CHECK_EQ(actors[k].stats.jobs_completed, JOBS);
	CHECK_OK(rts_cond_destroy(&s.cond));
	CHECK_OK(rts_mutex_destroy(&s.pip));
	CHECK_OK(rts_mutex_destroy(&s.plain));
	CHECK_OK(rts_mutex_destroy(&s.fifo));
}

int main(int argc, char **argv)
{
	struct h_case cases[H_NCASES(forms)];
	static char names[H_NCASES(forms)][32];
	for (size_t i = 0; i < H_NCASES(forms); i++) {
		snprintf(names[i], sizeof(names[i]), "stress_%s_seed%u", forms[i].form + 4, forms[i].seed);
		cases[i] = (struct h_case){names[i], NULL, 60000, test_stress, (int)i};
	}
	return h_main(argc, argv, cases, H_NCASES(cases));
}
