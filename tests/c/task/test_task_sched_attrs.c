/* SPDX-License-Identifier: MIT */
/*
 * A task's kernel attributes apart from its jobs (<rtsched/task.h>): a
 * SCHED_DEADLINE reservation of the thread's own (dl_deadline_ns,
 * dl_period_ns: rt-app's dl-deadline and dl-period) and a fair policy's
 * slice (slice_ns, rt-app's dl-runtime on SCHED_OTHER), as sched_getattr
 * reports them to the task's own thread in its first job; each refused with
 * a reason where it means nothing.
 */
#include <sys/utsname.h>

#include <rtsched/task.h>

#include "harness.h"
#include "refusal.h"
#include "internal/sched_attr.h"

#define MS (1000 * 1000LL)

struct seen {
	atomic_int jobs;
	struct rts_sched_attr attr; /* read by job 1 */
};

static void observe(rts_task_t *task, const struct rts_job *job, void *arg)
{
	(void)task;
	struct seen *s = arg;
	if (job->number == 1) {
		s->attr.size = sizeof(s->attr);
		CHECK_OK(-rts_sched_getattr(0, &s->attr));
	}
	atomic_fetch_add(&s->jobs, 1);
}

static struct rts_task_params task_params(const char *name, enum rts_policy policy)
{
	struct rts_task_params p = {
		.name = name,
		.kind = RTS_TASK_SELF_PACED,
		.period_ns = 5 * MS, /* the jobs' least gap */
		.deadline_ns = 5 * MS,
		.max_jobs = 3,
		.policy = policy,
	};
	return p;
}

/* The kernel reports a fair thread's slice in sched_runtime from Linux 6.12 on. */
static bool kernel_has_slices(void)
{
	struct utsname u;
	int major = 0, minor = 0;
	if (uname(&u) != 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 12);
}

static void test_own_deadline_reservation_is_the_kernel_threads(void)
{
	rts_taskset_t *set;
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct seen s = { 0 };
	struct rts_task_params p = task_params("own-dl", RTS_POLICY_DEADLINE);
	p.dl_runtime_ns = 2 * MS;    /* above... */
	p.dl_deadline_ns = 30 * MS;  /* ...the jobs' 5 ms deadline would refuse it */
	p.dl_period_ns = 40 * MS;
	int err = rts_task_create(set, &p, observe, &s, NULL);
	if (err == EPERM || err == EBUSY)
		SKIP("SCHED_DEADLINE refused here: %s", rts_taskset_error(set));
	CHECK_OK(err);
	CHECK_OK(rts_taskset_release(set, clock_ns(CLOCK_MONOTONIC) + 20 * MS));
	CHECK_OK(rts_taskset_join(set));
	CHECK_EQ(atomic_load(&s.jobs), 3);
	CHECK_EQ(s.attr.sched_policy, (uint32_t)SCHED_DEADLINE);
	CHECK_EQ(s.attr.sched_runtime, (uint64_t)(2 * MS));
	CHECK_EQ(s.attr.sched_deadline, (uint64_t)(30 * MS));
	CHECK_EQ(s.attr.sched_period, (uint64_t)(40 * MS));
	/* the reservation's runtime is not a job's budget: no SCHED_FLAG_DL_OVERRUN */
	CHECK_EQ(s.attr.sched_flags & SCHED_FLAG_DL_OVERRUN, 0);
	rts_taskset_destroy(set);
}

static void test_slices_are_the_kernel_threads(void)
{
	rts_taskset_t *set;
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct seen other = { 0 }, batch = { 0 }, plain = { 0 };
	struct rts_task_params p = task_params("sliced-other", RTS_POLICY_OTHER);
	p.slice_ns = 20 * MS;
	CHECK_OK(rts_task_create(set, &p, observe, &other, NULL));
	p = task_params("sliced-batch", RTS_POLICY_BATCH);
	p.slice_ns = 7 * MS;
	CHECK_OK(rts_task_create(set, &p, observe, &batch, NULL));
	p = task_params("plain-other", RTS_POLICY_OTHER);
	CHECK_OK(rts_task_create(set, &p, observe, &plain, NULL));
	CHECK_OK(rts_taskset_release(set, clock_ns(CLOCK_MONOTONIC) + 20 * MS));
	CHECK_OK(rts_taskset_join(set));
	CHECK_EQ(other.attr.sched_policy, (uint32_t)SCHED_OTHER);
	CHECK_EQ(batch.attr.sched_policy, (uint32_t)SCHED_BATCH);
	if (!kernel_has_slices())
		SKIP("this kernel (before 6.12) has no slice of its own per thread");
	CHECK_EQ(other.attr.sched_runtime, (uint64_t)(20 * MS));
	CHECK_EQ(batch.attr.sched_runtime, (uint64_t)(7 * MS));
	CHECK_MSG(plain.attr.sched_runtime != (uint64_t)(20 * MS) &&
			  plain.attr.sched_runtime != (uint64_t)(7 * MS),
		  "a task without a slice got another's: %llu ns",
		  (unsigned long long)plain.attr.sched_runtime);
	rts_taskset_destroy(set);
}

static void test_attributes_where_they_mean_nothing_are_refused(void)
{
	rts_taskset_t *set;
	CHECK_OK(rts_taskset_create(&set, NULL));
	struct rts_task_params p = task_params("dl-over", RTS_POLICY_DEADLINE);
	p.dl_runtime_ns = 2 * MS;
	p.dl_deadline_ns = 50 * MS;
	p.dl_period_ns = 40 * MS;
	check_refused(set, &p, "dl_deadline_ns, dl_period_ns where given");
	p = task_params("dl-runtime", RTS_POLICY_DEADLINE);
	p.dl_runtime_ns = 20 * MS; /* above the jobs' deadline, which is the reservation's */
	p.dl_period_ns = 40 * MS;
	check_refused(set, &p, "runtime");
	p = task_params("fifo-dl", RTS_POLICY_FIFO);
	p.priority = 10;
	p.dl_period_ns = 40 * MS;
	check_refused(set, &p, "SCHED_DEADLINE's");
	p = task_params("fifo-slice", RTS_POLICY_FIFO);
	p.priority = 10;
	p.slice_ns = 3 * MS;
	check_refused(set, &p, "other and batch only");
	p = task_params("idle-slice", RTS_POLICY_IDLE);
	p.slice_ns = 3 * MS;
	check_refused(set, &p, "other and batch only");
	p = task_params("negative-slice", RTS_POLICY_OTHER);
	p.slice_ns = -1;
	check_refused(set, &p, ">= 0");
	rts_taskset_destroy(set);

	CHECK_OK(rts_taskset_create(&set, NULL));
	CHECK_OK(rts_taskset_set_backend(set, "ult:gfp"));
	p = task_params("ult-slice", RTS_POLICY_OTHER);
	p.slice_ns = 3 * MS;
	check_refused(set, &p, "ult backend");
	rts_taskset_destroy(set);
}

static const struct h_case cases[] = {
	H_CASE(test_own_deadline_reservation_is_the_kernel_threads, 10000),
	H_CASE(test_slices_are_the_kernel_threads, 10000),
	H_CASE(test_attributes_where_they_mean_nothing_are_refused, 5000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
