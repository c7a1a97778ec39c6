/* SPDX-License-Identifier: MIT */
/*
 * The uncontended path of every ceiling protocol in its deferred form makes
 * no system call: job gate, lock, unlock (and trylock, unlock), counted with
 * the counter rtsched-lockbench uses (tools/lockbench/syscount.c: a perf
 * counter on raw_syscalls:sys_enter for the calling thread). The eager form
 * is counted too, as the proof that the counter sees this thread's calls.
 */
#include "ceiling_helpers.h"

#include "syscount.h"

#define PAIRS 1000

static struct lb_syscount open_counter(void)
{
	struct lb_syscount_probe probe;
	lb_syscount_probe(&probe);
	struct lb_syscount sc;
	char reason[256] = "";
	if (lb_syscount_open(&sc, &probe, reason, sizeof(reason)) != 0)
		SKIP("cannot count system calls: %s", reason);
	return sc;
}

/* System calls of PAIRS rounds of gate, lock, unlock, trylock, unlock (after one warm-up round). */
static int64_t count_rounds(rts_mutex_t *m, struct lb_syscount *sc)
{
	int errs = 0;
	errs |= rts_lock_gate() | rts_mutex_lock(m) | rts_mutex_unlock(m);
	lb_syscount_start(sc);
	for (int i = 0; i < PAIRS; i++) {
		errs |= rts_lock_gate();
		errs |= rts_mutex_lock(m);
		errs |= rts_mutex_unlock(m);
		errs |= rts_mutex_trylock(m);
		errs |= rts_mutex_unlock(m);
	}
	int64_t n = lb_syscount_stop(sc);
	CHECK_EQ(errs, 0);
	return n;
}

static const int protos[] = { RTS_PROTO_PCP, RTS_PROTO_SRP, RTS_PROTO_IPCP, RTS_PROTO_MPCP,
			      RTS_PROTO_FMLP };

static void test_deferred_uncontended_makes_no_syscall(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	h_pin_cpu(rt_cpu);
	h_set_fifo(10);
	struct lb_syscount sc = open_counter();
	int64_t counts[H_NCASES(protos)];
	for (size_t i = 0; i < H_NCASES(protos); i++) {
		rts_mutex_t m;
		ceil_mutex_init(&m, protos[i], protos[i] == RTS_PROTO_FMLP ? 0 : 20,
				proto_is_local(protos[i]) ? rt_cpu : -1, RTS_CEILING_DEFERRED);
		counts[i] = count_rounds(&m, &sc);
		CHECK_OK(rts_mutex_destroy(&m));
	}
	lb_syscount_close(&sc);
	h_set_fifo(0);
	h_pin_cpu(free_cpu);
	for (size_t i = 0; i < H_NCASES(protos); i++) {
		H_LOG("%s deferred: %lld system calls in %d rounds", ceil_proto_name(protos[i]),
		      (long long)counts[i], PAIRS);
		CHECK_MSG(counts[i] == 0, "%s deferred: %lld system calls in %d uncontended rounds",
			  ceil_proto_name(protos[i]), (long long)counts[i], PAIRS);
	}
}

static void test_eager_is_counted(void)
{
	int rt_cpu, free_cpu;
	h_require_rt(&rt_cpu, &free_cpu);
	h_pin_cpu(rt_cpu);
	h_set_fifo(10);
	struct lb_syscount sc = open_counter();
	rts_mutex_t m;
	ceil_mutex_init(&m, RTS_PROTO_IPCP, 20, rt_cpu, RTS_CEILING_EAGER);
	int64_t n = count_rounds(&m, &sc);
	lb_syscount_close(&sc);
	h_set_fifo(0);
	h_pin_cpu(free_cpu);
	/* sched_setattr up at each lock, down at each unlock. */
	CHECK_GE(n, 4 * PAIRS);
}

static const struct h_case cases[] = {
	H_CASE(test_deferred_uncontended_makes_no_syscall, 10000),
	H_CASE(test_eager_is_counted, 10000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
