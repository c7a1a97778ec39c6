/* SPDX-License-Identifier: MIT */
/*
 * The liblitmus API on rtsched, checked the way liblitmus's own tests/ check
 * LITMUS^RT: exact error numbers for bad parameters and misuse, job numbers
 * and the partition a task runs on, synchronous release of exactly the
 * waiting tasks, lock protocol errors (wrong partition, wrong plugin,
 * best-effort callers). Orders and counts only, never times.
 */
#include "litmus_helpers.h"

#include <sys/syscall.h>
#include <sys/wait.h>

#include <rtsched/sched.h>

/* ---- parameters ----------------------------------------------------------- */

static void test_params_invalid(void)
{
	struct rt_task p;
	init_rt_task_param(&p);
	CHECK_EQ(p.priority, LITMUS_LOWEST_PRIORITY);
	CHECK_EQ(p.cls, RT_CLASS_SOFT);
	LCHECK_FAILS(EINVAL, set_rt_task_param(gettid(), NULL));
	p.period = 100;
	p.exec_cost = 110; /* over-utilised */
	LCHECK_FAILS(EINVAL, set_rt_task_param(gettid(), &p));
	p.exec_cost = 90;
	p.relative_deadline = 50; /* exec_cost above the deadline */
	LCHECK_FAILS(EINVAL, set_rt_task_param(gettid(), &p));
	p.relative_deadline = 0;
	p.cpu = (unsigned)-1;
	LCHECK_FAILS(EINVAL, set_rt_task_param(gettid(), &p));
	p.cpu = 0;
	p.period = 0;
	LCHECK_FAILS(EINVAL, set_rt_task_param(gettid(), &p));
	p.period = 100;
	p.cls = (task_class_t)7;
	LCHECK_FAILS(EINVAL, set_rt_task_param(gettid(), &p));
	p.cls = RT_CLASS_HARD;
	LCHECK_FAILS(EINVAL, set_rt_task_param(-1, &p));
	LCHECK_FAILS(ESRCH, set_rt_task_param(0x3fffffff, &p)); /* no such thread */
	LCHECK_FAILS(EINVAL, get_rt_task_param(gettid(), &p)); /* none stored yet */
	LCHECK_OK(set_rt_task_param(gettid(), &p));
	struct rt_task back;
	LCHECK_OK(get_rt_task_param(0, &back));
	CHECK(memcmp(&back, &p, sizeof(p)) == 0);
	LCHECK_OK(sporadic_partitioned(ms2ns(1), ms2ns(10), 0));
	LCHECK_OK(get_rt_task_param(gettid(), &back));
	CHECK_EQ(back.exec_cost, 1000000);
	CHECK_EQ(back.period, 10000000);
	CHECK_EQ(str2class("hard"), RT_CLASS_HARD);
	CHECK_EQ(str2class("hrt"), RT_CLASS_HARD); /* liblitmus's names (rtspin -c) */
	CHECK_EQ(str2class("srt"), RT_CLASS_SOFT);
	CHECK_EQ(lock_protocol_for_name("MPCP_VS"), MPCP_VS_SEM); /* liblitmus's two spellings */
	CHECK_EQ(lock_protocol_for_name("MPCP-VS"), MPCP_VS_SEM);
	LCHECK_FAILS(EFAULT, set_rt_task_param(gettid(), (struct rt_task *)0x123));
	LCHECK_FAILS(EFAULT, get_rt_task_param(gettid(), (struct rt_task *)0x123));
	CHECK_EQ((int)str2class("firm"), -1);
}

static void test_job_control_non_rt(void)
{
	unsigned job;
	LCHECK_FAILS(EINVAL, sleep_next_period());
	LCHECK_FAILS(EINVAL, wait_for_job_release(0));
	LCHECK_FAILS(EPERM, get_job_no(&job));
	LCHECK_FAILS(EPERM, wait_for_ts_release());
	LCHECK_FAILS(EINVAL, task_mode(7));
	LCHECK_OK(task_mode(BACKGROUND_TASK)); /* already background: nothing to do */
}

static void test_plugins_refused(void)
{
	LCHECK_OK(sporadic_partitioned(ms2ns(1), ms2ns(10), 0));
	use_plugin("Linux");
	LCHECK_FAILS(EINVAL, task_mode(LITMUS_RT_TASK));
	use_plugin("C-EDF"); /* without its clusters */
	LCHECK_FAILS(EINVAL, task_mode(LITMUS_RT_TASK));
	CHECK(strstr(litmus_last_error(), "C-EDF needs its clusters") != NULL);
	use_plugin("P-FP 2");
	LCHECK_FAILS(EINVAL, task_mode(LITMUS_RT_TASK));
	use_plugin("PFP");
	LCHECK_FAILS(EINVAL, init_litmus());
	/* The file litmus-setsched writes, when the environment names none. */
	CHECK_SYS(unsetenv("RTSCHED_LITMUS_PLUGIN"));
	char path[] = "/tmp/rtsched-litmus-plugin.XXXXXX";
	int fd = mkstemp(path);
	CHECK_SYS(fd);
	CHECK_EQ(write(fd, "Nonsense\n", 9), 9);
	CHECK_SYS(setenv("RTSCHED_LITMUS_PLUGIN_FILE", path, 1));
	LCHECK_FAILS(EINVAL, init_litmus());
	CHECK(strstr(litmus_last_error(), path) != NULL);
	CHECK_SYS(ftruncate(fd, 0));
	CHECK_EQ(pwrite(fd, "Linux\n", 6, 0), 6);
	LCHECK_OK(init_litmus());
	LCHECK_FAILS(EINVAL, task_mode(LITMUS_RT_TASK));
	close(fd);
	unlink(path);
}

/* A fake sysfs tree: CPU c's level-2 unified cache shared by L2[c], level 1 private. */
static void fake_caches(const char *root, const char *const *l2)
{
	char path[512];
	for (int c = 0; c < num_online_cpus(); c++) {
		const char *files[][3] = { { "0", "1", "Data" }, { "1", "2", "Unified" } };
		for (int i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "mkdir -p %s/cpu%d/cache/index%s", root, c, files[i][0]);
			CHECK_EQ(system(path), 0);
			char shared[16];
			snprintf(shared, sizeof(shared), "%d", c);
			const char *values[][2] = { { "level", files[i][1] }, { "type", files[i][2] },
						    { "shared_cpu_list", i == 0 ? shared : l2[c] } };
			for (int v = 0; v < 3; v++) {
				snprintf(path, sizeof(path), "%s/cpu%d/cache/index%s/%s", root, c,
					 files[i][0], values[v][0]);
				FILE *f = fopen(path, "w");
				CHECK(f != NULL);
				fprintf(f, "%s\n", values[v][1]);
				fclose(f);
			}
		}
	}
}

/* C-EDF's domains are its clusters: by size, ALL, or the CPUs sharing a cache level. */
static void test_cedf_domains_are_clusters(void)
{
	int n = num_online_cpus();
	char spec[32];
	use_plugin("C-EDF 1"); /* clusters of one CPU: a domain per CPU, as PSN-EDF */
	for (int d = 0; d < n; d++)
		CHECK_EQ(domain_to_first_cpu(d), d);
	LCHECK_FAILS(EINVAL, domain_to_first_cpu(n));
	LCHECK_OK(sporadic_clustered(ms2ns(1), ms2ns(10), n - 1)); /* a cluster names its first CPU */
	struct rt_task got;
	LCHECK_OK(get_rt_task_param(gettid(), &got));
	CHECK_EQ(got.cpu, (unsigned)(n - 1));
	use_plugin("C-EDF ALL"); /* one cluster of every CPU: domain 0 only */
	CHECK_EQ(domain_to_first_cpu(0), 0);
	if (n > 1) {
		LCHECK_FAILS(EINVAL, sporadic_clustered(ms2ns(1), ms2ns(10), 1));
		LCHECK_FAILS(EINVAL, domain_to_first_cpu(1));
		LCHECK_FAILS(EINVAL, be_migrate_to_domain(1));
		CHECK(strstr(litmus_last_error(), "C-EDF has 1 domain") != NULL);
	}
	cpu_set_t before, after;
	CHECK_SYS(sched_getaffinity(0, sizeof(before), &before));
	LCHECK_OK(be_migrate_to_domain(0));
	CHECK_SYS(sched_getaffinity(0, sizeof(after), &after));
	CHECK_EQ(CPU_COUNT(&after), n);
	snprintf(spec, sizeof(spec), "C-EDF %d", n + 1); /* larger than the machine */
	use_plugin(spec);
	LCHECK_FAILS(EINVAL, domain_to_first_cpu(0));
	use_plugin("C-EDF L4");
	LCHECK_FAILS(EINVAL, domain_to_first_cpu(0));
	/* By cache level, from a sysfs tree where CPUs pair up on their L2. */
	char root[] = "/tmp/rtsched-litmus-sysfs.XXXXXX";
	CHECK(mkdtemp(root) != NULL);
	const char *pairs[CPU_SETSIZE];
	char names[64][16];
	for (int c = 0; c < n && c < 64; c++) {
		snprintf(names[c], sizeof(names[c]), "%d-%d", c - c % 2, c - c % 2 + 1);
		pairs[c] = names[c];
	}
	fake_caches(root, pairs);
	CHECK_SYS(setenv("RTSCHED_LITMUS_SYSFS_CPU", root, 1));
	use_plugin("C-EDF L2");
	for (int d = 0; d < (n + 1) / 2; d++)
		CHECK_EQ(domain_to_first_cpu(d), 2 * d);
	LCHECK_FAILS(EINVAL, domain_to_first_cpu((n + 1) / 2));
	use_plugin("C-EDF L1"); /* private: a domain per CPU */
	CHECK_EQ(domain_to_first_cpu(n - 1), n - 1);
	use_plugin("C-EDF L3"); /* no such cache in the tree */
	LCHECK_FAILS(ENOENT, domain_to_first_cpu(0));
	CHECK(strstr(litmus_last_error(), "no level-3") != NULL);
	CHECK_SYS(unsetenv("RTSCHED_LITMUS_SYSFS_CPU"));
	char rm[128];
	snprintf(rm, sizeof(rm), "rm -rf %s", root);
	CHECK_EQ(system(rm), 0);
	CHECK_SYS(sched_setaffinity(0, sizeof(before), &before));
	CHECK_EQ(cluster_to_first_cpu(0, 2), 0);
	LCHECK_FAILS(EINVAL, cluster_to_first_cpu(n, 1));
}

static void test_lock_errors_best_effort(void)
{
	char path[64];
	int fd = make_namespace(path, sizeof(path));
	use_plugin("P-FP");
	/* The caller's mistake before the missing protocol, as LITMUS^RT (its not_lock_pcp_be). */
	LCHECK_FAILS(EPERM, open_dpcp_sem(fd, 0, 0));
	LCHECK_FAILS(EPERM, open_dflp_sem(fd, 0, 0));
	LCHECK_FAILS(EBADF, open_fmlp_sem(-1, 0));
	/* Best-effort tasks may not open ceiling locks (their ceilings come from openers)... */
	LCHECK_FAILS(EPERM, open_srp_sem(fd, 0));
	LCHECK_FAILS(EPERM, open_pcp_sem(fd, 1, 0));
	/* ... may open an FMLP lock, but not lock it. */
	int od = open_fmlp_sem(fd, 2);
	LCHECK_OK(od);
	LCHECK_FAILS(EPERM, litmus_lock(od));
	LCHECK_FAILS(EINVAL, litmus_unlock(od));
	LCHECK_OK(od_close(od));
	LCHECK_FAILS(EINVAL, od_close(od)); /* LITMUS^RT's number (tests/fdso.c invalid_od) */
	LCHECK_FAILS(EINVAL, litmus_lock(od));
	/* Protocols a plugin lacks fail as under LITMUS^RT. */
	use_plugin("GSN-EDF");
	LCHECK_FAILS(ENXIO, open_srp_sem(fd, 3));
	use_plugin("PSN-EDF");
	LCHECK_FAILS(ENXIO, open_pcp_sem(fd, 3, 0));
	LCHECK_FAILS(ENXIO, open_mpcp_sem(fd, 3));
	CHECK_EQ(lock_protocol_for_name("MPCP"), MPCP_SEM);
	CHECK_EQ(lock_protocol_for_name("nope"), -1);
	CHECK(strcmp(name_for_lock_protocol(PCP_SEM), "PCP") == 0);
	exit_litmus();
	unlink_namespace(path, fd);
}

/* ---- jobs under P-FP ------------------------------------------------------- */

static void test_jobs_advance_on_partition(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	LCHECK_OK(init_litmus());
	struct rt_task p;
	init_rt_task_param(&p);
	p.exec_cost = us2ns(100);
	p.period = ms2ns(1);
	p.cpu = (unsigned)rt_cpu;
	p.priority = 200; /* no SCHED_FIFO level for it */
	LCHECK_OK(set_rt_task_param(gettid(), &p));
	LCHECK_FAILS(EINVAL, task_mode(LITMUS_RT_TASK));
	p.priority = 10;
	p.budget_policy = PRECISE_ENFORCEMENT; /* SCHED_FIFO cannot enforce it */
	LCHECK_OK(set_rt_task_param(gettid(), &p));
	LCHECK_FAILS(EINVAL, task_mode(LITMUS_RT_TASK));
	p.budget_policy = NO_ENFORCEMENT;
	p.release_policy = TASK_PERIODIC;
	LCHECK_OK(set_rt_task_param(gettid(), &p));
	LCHECK_OK(task_mode(LITMUS_RT_TASK));
	LCHECK_FAILS(EBUSY, set_rt_task_param(gettid(), &p));
	CHECK_EQ(h_thread_prio(gettid()), h_fifo_prio_field(89)); /* 99 - 10 */
	unsigned job = 0;
	LCHECK_OK(get_job_no(&job));
	CHECK_EQ(job, 1);
	for (unsigned k = 2; k <= 6; k++) {
		LCHECK_OK(sleep_next_period());
		LCHECK_OK(get_job_no(&job));
		CHECK_EQ(job, k);
		CHECK_EQ(sched_getcpu(), rt_cpu);
	}
	LCHECK_OK(wait_for_job_release(10));
	LCHECK_OK(get_job_no(&job));
	CHECK_EQ(job, 10);
	LCHECK_OK(wait_for_job_release(3)); /* released long ago: returns at once */
	LCHECK_OK(get_job_no(&job));
	CHECK_EQ(job, 10);
	lt_t used, left;
	LCHECK_OK(get_current_budget(&used, &left));
	CHECK_LE(left, p.exec_cost);
	LCHECK_OK(task_mode(BACKGROUND_TASK));
	CHECK_EQ(sched_getscheduler(0), SCHED_OTHER);
	LCHECK_FAILS(EPERM, get_job_no(&job));
	exit_litmus();
}

/* ---- synchronous release ---------------------------------------------------- */

struct waiter {
	pthread_t thread;
	int cpu;
	unsigned prio;
	_Atomic int released; /* 1 once wait_for_ts_release returned */
	unsigned job_after;
};

static void *ts_waiter(void *arg)
{
	struct waiter *w = arg;
	become_pfp_task(w->cpu, w->prio, ms2ns(5));
	LCHECK_OK(wait_for_ts_release());
	LCHECK_OK(get_job_no(&w->job_after));
	H_STORE(&w->released, 1);
	LCHECK_OK(task_mode(BACKGROUND_TASK));
	return NULL;
}

static void test_release_ts_releases_exactly_the_waiters(void)
{
	int rt_cpu;
	char ts[96];
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	use_private_ts(ts, sizeof(ts));
	CHECK_EQ(get_nr_ts_release_waiters(), 0);
	struct waiter w[3] = { { .cpu = rt_cpu, .prio = 20 },
			       { .cpu = rt_cpu, .prio = 21 },
			       { .cpu = rt_cpu, .prio = 22 } };
	for (int i = 0; i < 2; i++)
		CHECK_OK(pthread_create(&w[i].thread, NULL, ts_waiter, &w[i]));
	WAIT_FOR(get_nr_ts_release_waiters() == 2, 5000);
	lt_t delay = ms2ns(1);
	CHECK_EQ(release_ts(&delay), 2);
	CHECK_EQ(get_nr_ts_release_waiters(), 0);
	for (int i = 0; i < 2; i++) {
		CHECK_OK(pthread_join(w[i].thread, NULL));
		CHECK_EQ(H_LOAD(&w[i].released), 1);
		CHECK_EQ(w[i].job_after, 2); /* job 1 at task_mode, job 2 at the release */
	}
	/* A task that starts waiting after a release waits for the next one. */
	CHECK_OK(pthread_create(&w[2].thread, NULL, ts_waiter, &w[2]));
	WAIT_FOR(get_nr_ts_release_waiters() == 1, 5000);
	h_sleep_ms(5);
	CHECK_EQ(H_LOAD(&w[2].released), 0);
	CHECK_EQ(release_ts(&delay), 1);
	CHECK_OK(pthread_join(w[2].thread, NULL));
	CHECK_EQ(H_LOAD(&w[2].released), 1);
	CHECK_EQ(release_ts(&delay), 0); /* nobody waits */
	LCHECK_FAILS(EFAULT, release_ts(NULL));
	unlink_ts(ts);
}

/* ---- locks under P-FP -------------------------------------------------------- */

static void test_lock_partitions_and_owners(void)
{
	int rt_cpu, free_cpu;
	char path[64];
	h_require_rt(&rt_cpu, &free_cpu);
	use_plugin("P-FP");
	int fd = make_namespace(path, sizeof(path));
	become_pfp_task(rt_cpu, 30, ms2ns(10));
	int here = open_pcp_sem(fd, 0, rt_cpu);
	int there = open_pcp_sem(fd, 1, free_cpu);
	int srp = open_srp_sem(fd, 2);
	int mpcp = open_mpcp_sem(fd, 3);
	int fmlp = open_fmlp_sem(fd, 4);
	LCHECK_OK(here);
	LCHECK_OK(there);
	LCHECK_OK(srp);
	LCHECK_OK(mpcp);
	LCHECK_OK(fmlp);
	/* Agent and virtual-spinning protocols: none here; a bad CPU is still EINVAL. */
	LCHECK_FAILS(ENOTSUP, open_dpcp_sem(fd, 9, rt_cpu));
	LCHECK_FAILS(ENOTSUP, open_dflp_sem(fd, 9, rt_cpu));
	LCHECK_FAILS(ENOTSUP, od_open(fd, MPCP_VS_SEM, 9));
	LCHECK_FAILS(EINVAL, open_dpcp_sem(fd, 9, 0xbadca5e));
	/* A local (PCP) lock of another partition. */
	LCHECK_FAILS(EPERM, litmus_lock(there));
	/* Same id, other protocol or other CPU: refused. */
	LCHECK_FAILS(EINVAL, open_srp_sem(fd, 0));
	LCHECK_FAILS(EINVAL, open_pcp_sem(fd, 0, free_cpu));
	int ods[] = { here, srp, mpcp, fmlp };
	for (size_t i = 0; i < sizeof(ods) / sizeof(ods[0]); i++) {
		for (int round = 0; round < 3; round++) {
			LCHECK_OK(litmus_lock(ods[i]));
			LCHECK_OK(litmus_unlock(ods[i]));
		}
		/* Tasks may not unlock resources they do not hold. */
		LCHECK_FAILS(EINVAL, litmus_unlock(ods[i]));
	}
	/* LITMUS^RT's nesting rule (its tests/nesting.c): local (PCP, SRP) locks
	 * nest in each other; a global one (FMLP, MPCP) neither nests nor is nested in. */
	LCHECK_OK(litmus_lock(here));
	LCHECK_OK(litmus_lock(srp));
	LCHECK_FAILS(EBUSY, litmus_lock(mpcp));
	LCHECK_OK(litmus_unlock(srp));
	LCHECK_OK(litmus_unlock(here));
	LCHECK_OK(litmus_lock(fmlp));
	LCHECK_FAILS(EBUSY, litmus_lock(here));
	LCHECK_FAILS(EBUSY, litmus_lock(mpcp));
	LCHECK_OK(litmus_unlock(fmlp));
	/* A second descriptor of the same lock is the same lock. */
	int again = open_fmlp_sem(fd, 4);
	LCHECK_OK(again);
	LCHECK_OK(litmus_lock(fmlp));
	LCHECK_FAILS(EBUSY, litmus_lock(again)); /* held: nesting, as LITMUS^RT */
	LCHECK_OK(litmus_unlock(again));
	/* A PCP lock opened without a CPU is the caller's partition's. */
	int mine = litmus_open_lock(PCP_SEM, 5, path, NULL);
	LCHECK_OK(mine);
	LCHECK_OK(litmus_lock(mine));
	LCHECK_OK(litmus_unlock(mine));
	LCHECK_FAILS(EINVAL, open_pcp_sem(fd, 5, free_cpu)); /* so it is rt_cpu's */
	/* A forked child inherits no descriptor, and is not real-time. */
	pid_t child = fork();
	CHECK_SYS(child);
	if (child == 0) {
		int bad = litmus_lock(fmlp) == 0 || errno != EINVAL ||
			  sched_getscheduler(0) != SCHED_OTHER || sleep_next_period() == 0 ||
			  errno != EINVAL;
		_exit(bad);
	}
	int status;
	CHECK_SYS(waitpid(child, &status, 0));
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the child could use the parent's descriptor, or was (or thought it was) "
		  "real-time (status %d)", status);
	for (size_t i = 0; i < sizeof(ods) / sizeof(ods[0]); i++)
		LCHECK_OK(od_close(ods[i]));
	LCHECK_OK(task_mode(BACKGROUND_TASK));
	exit_litmus();
	unlink_namespace(path, fd);
}

/* A task of higher priority opens a held PCP lock: its ceiling cannot rise (EBUSY). */
struct opener {
	int fd, cpu, od;
	_Atomic int od_busy_errno; /* errno of the open while the lock was held */
	_Atomic int may_retry;
};

static void *late_opener(void *arg)
{
	struct opener *o = arg;
	become_pfp_task(o->cpu, 20, ms2ns(10)); /* preempts the holder (priority 30) */
	errno = 0;
	o->od = open_pcp_sem(o->fd, 0, o->cpu);
	H_STORE(&o->od_busy_errno, o->od < 0 ? errno : -1);
	LCHECK_OK(task_mode(BACKGROUND_TASK));
	while (!H_LOAD(&o->may_retry))
		h_sleep_ms(1);
	LCHECK_OK(task_mode(LITMUS_RT_TASK));
	o->od = open_pcp_sem(o->fd, 0, o->cpu); /* not held now: the ceiling rises to 79 */
	LCHECK_OK(o->od);
	LCHECK_OK(litmus_lock(o->od));
	LCHECK_OK(litmus_unlock(o->od));
	LCHECK_OK(task_mode(BACKGROUND_TASK));
	return NULL;
}

static void test_ceiling_rises_only_while_free(void)
{
	int rt_cpu;
	char path[64];
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	int fd = make_namespace(path, sizeof(path));
	become_pfp_task(rt_cpu, 30, ms2ns(10));
	int od = open_pcp_sem(fd, 0, rt_cpu);
	LCHECK_OK(od);
	LCHECK_OK(litmus_lock(od));
	struct opener o = { .fd = fd, .cpu = rt_cpu };
	pthread_t t;
	CHECK_OK(pthread_create(&t, NULL, late_opener, &o));
	WAIT_FOR(H_LOAD(&o.od_busy_errno) != 0, 5000);
	CHECK_EQ(H_LOAD(&o.od_busy_errno), EBUSY);
	LCHECK_OK(litmus_unlock(od));
	H_STORE(&o.may_retry, 1);
	CHECK_OK(pthread_join(t, NULL));
	/* The holder's level (69) stays below the raised ceiling: it still locks. */
	LCHECK_OK(litmus_lock(od));
	LCHECK_OK(litmus_unlock(od));
	LCHECK_OK(task_mode(BACKGROUND_TASK));
	exit_litmus();
	unlink_namespace(path, fd);
}

/* GSN-EDF: the kernel's admission refuses a third task of utilisation 0.7 on two CPUs. */
struct dl_task {
	pthread_t thread;
	int ret, err;
	char why[320];
	_Atomic int tried, done;
};

static void *dl_task_body(void *arg)
{
	struct dl_task *d = arg;
	struct rt_task p;
	init_rt_task_param(&p);
	p.exec_cost = ms2ns(7);
	p.period = ms2ns(10);
	LCHECK_OK(set_rt_task_param(gettid(), &p));
	d->ret = task_mode(LITMUS_RT_TASK);
	d->err = errno;
	snprintf(d->why, sizeof(d->why), "%s", litmus_last_error());
	H_STORE(&d->tried, 1);
	while (!H_LOAD(&d->done))
		if (d->ret == 0)
			LCHECK_OK(sleep_next_period()); /* sleeps: the reservation is not used */
		else
			h_sleep_ms(1);
	LCHECK_OK(task_mode(BACKGROUND_TASK));
	return NULL;
}

static void test_gsn_edf_admission_refused(void)
{
	h_require_rt(NULL, NULL);
	if (sysconf(_SC_NPROCESSORS_ONLN) != 2)
		SKIP("the utilisations are chosen for 2 CPUs");
	use_plugin("GSN-EDF");
	struct dl_task d[3];
	memset(d, 0, sizeof(d));
	int admitted = 0, refused = 0;
	for (int i = 0; i < 3; i++) {
		CHECK_OK(pthread_create(&d[i].thread, NULL, dl_task_body, &d[i]));
		WAIT_FOR(H_LOAD(&d[i].tried), 5000);
		if (d[i].ret == 0) {
			admitted++;
		} else {
			refused++;
			CHECK_EQ(d[i].err, EBUSY);
			CHECK_MSG(strstr(d[i].why, "admission") != NULL, "refusal says: %s", d[i].why);
		}
	}
	for (int i = 0; i < 3; i++) {
		H_STORE(&d[i].done, 1);
		CHECK_OK(pthread_join(d[i].thread, NULL));
	}
	if (d[0].ret != 0)
		SKIP("the first SCHED_DEADLINE task was refused: %s", d[0].why);
	CHECK_EQ(refused, 1); /* 0.7 + 0.7 fit in 2 x 95 %, a third does not */
	CHECK_EQ(admitted, 2);
}

/* The kernel's view of the calling thread's SCHED_DEADLINE parameters (sched_getattr). */
static void dl_params_self(uint64_t *runtime_ns, uint64_t *deadline_ns, uint64_t *period_ns)
{
	struct {
		uint32_t size, policy;
		uint64_t flags;
		int32_t nice;
		uint32_t priority;
		uint64_t runtime, deadline, period;
		uint32_t util_min, util_max;
	} attr;
	memset(&attr, 0, sizeof(attr));
	CHECK_SYS(syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0));
	CHECK_EQ(attr.policy, 6); /* SCHED_DEADLINE */
	*runtime_ns = attr.runtime;
	*deadline_ns = attr.deadline;
	*period_ns = attr.period;
}

/*
 * LITMUS^RT accepts a 10 ns / 100 ns task (liblitmus's nesting tests use it);
 * the kernel's CBS takes no period under its minimum: the period is scaled
 * up with the runtime, the bandwidth stays 1/10.
 */
static void test_edf_short_period_scaled(void)
{
	h_require_rt(NULL, NULL);
	use_plugin("GSN-EDF");
	LCHECK_OK(sporadic_global(10, 100));
	if (task_mode(LITMUS_RT_TASK) != 0) {
		if (errno == EBUSY)
			SKIP("SCHED_DEADLINE admission refused: %s", litmus_last_error());
		FAIL("task_mode: %s (%s)", h_errname(errno), litmus_last_error());
	}
	uint64_t runtime, deadline, period;
	dl_params_self(&runtime, &deadline, &period);
	LCHECK_OK(task_mode(BACKGROUND_TASK));
	long min_us, max_us;
	rts_deadline_period_limits_us(&min_us, &max_us);
	CHECK(period >= (uint64_t)min_us * 1000);
	CHECK_EQ(period, deadline);
	CHECK_EQ(runtime * 10, period); /* the bandwidth asked for */
}

/*
 * LITMUS^RT accepts a 10 s / 100 s task (liblitmus's preempt_on_resume and
 * fmlp_lock_mode_change use it); the kernel's CBS takes no period over its
 * maximum: the deadline's window is divided into periods under it, the
 * bandwidth stays 1/10 (10 s per 99 s deadline: a little more, C/D).
 */
static void long_period_task(lt_t deadline_ns, uint64_t *runtime, uint64_t *period)
{
	struct rt_task p;
	init_rt_task_param(&p);
	p.exec_cost = s2ns(10);
	p.period = s2ns(100);
	p.relative_deadline = deadline_ns;
	LCHECK_OK(set_rt_task_param(gettid(), &p));
	if (task_mode(LITMUS_RT_TASK) != 0) {
		if (errno == EBUSY)
			SKIP("SCHED_DEADLINE admission refused: %s", litmus_last_error());
		FAIL("task_mode: %s (%s)", h_errname(errno), litmus_last_error());
	}
	uint64_t deadline;
	dl_params_self(runtime, &deadline, period);
	LCHECK_OK(task_mode(BACKGROUND_TASK));
	CHECK_EQ(deadline, *period);
}

static void test_edf_long_period_divided(void)
{
	h_require_rt(NULL, NULL);
	use_plugin("GSN-EDF");
	long min_us, max_us;
	rts_deadline_period_limits_us(&min_us, &max_us);
	if ((uint64_t)max_us * 1000 >= s2ns(100))
		SKIP("sched_deadline_period_max_us is %ld: a 100 s period fits", max_us);
	uint64_t runtime, period;
	long_period_task(0, &runtime, &period);
	CHECK(period <= (uint64_t)max_us * 1000);
	CHECK(period * 2 > (uint64_t)max_us * 1000); /* divided by the smallest integer */
	uint64_t k = s2ns(100) / period;             /* period = 100 s / k, rounded down */
	CHECK(s2ns(100) - k * period < k);
	CHECK(runtime * 10 >= period && runtime * 10 < period + 10 * 2); /* 1/10, rounded up */
	long_period_task(s2ns(99), &runtime, &period);
	CHECK(period <= (uint64_t)max_us * 1000);
	k = s2ns(99) / period;
	CHECK(s2ns(99) - k * period < k);
	CHECK(runtime * 99 >= period * 10 && runtime * 99 < period * 10 + 99 * 2); /* 10/99 */
}

/*
 * The control page is the thread's own (liblitmus's ctrl_page_writable pokes
 * int 32 of it): it follows the jobs as LITMUS^RT's does (job_index as
 * get_job_no, release one period apart, deadline = release + period) and
 * counts enter_np's nesting.
 */
static void test_ctrl_page_follows_jobs(void)
{
	int rt_cpu;
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	volatile int *raw = (volatile int *)get_ctrl_page();
	CHECK(raw != NULL);
	raw[32] = 0x12345678;
	struct control_page *cp = get_ctrl_page();
	CHECK(cp == (struct control_page *)raw); /* one page per thread */
	CHECK_EQ(cp->job_index, 0);              /* not a task yet */
	become_pfp_task(rt_cpu, 20, ms2ns(10));
	unsigned int job;
	LCHECK_OK(get_job_no(&job));
	CHECK_EQ(cp->job_index, job);
	lt_t release = cp->release;
	CHECK_EQ(cp->deadline, release + ms2ns(10));
	LCHECK_OK(sleep_next_period());
	LCHECK_OK(get_job_no(&job));
	CHECK_EQ(cp->job_index, job);
	CHECK_EQ(cp->release, release + ms2ns(10));
	enter_np();
	enter_np();
	CHECK_EQ(cp->sched.np.flag, 2);
	exit_np();
	exit_np();
	CHECK_EQ(cp->sched.np.flag, 0);
	CHECK_EQ(requested_to_preempt(), 0);
	pid_t child = fork();
	CHECK_SYS(child);
	if (child == 0) /* a task's child is no task: its copy says no job */
		_exit(get_ctrl_page() == cp && cp->job_index == 0 && cp->release == 0 ? 0 : 1);
	int status;
	CHECK_SYS(waitpid(child, &status, 0));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	LCHECK_OK(task_mode(BACKGROUND_TASK));
}

/* release_ts takes LITMUS^RT's absolute time: the waiter's next job starts no earlier. */
static lt_t timed_waiter_back_ns; /* when wait_for_ts_release returned; read after the join */

static void *ts_timed_waiter(void *arg)
{
	struct waiter *w = arg;
	become_pfp_task(w->cpu, w->prio, ms2ns(5));
	LCHECK_OK(wait_for_ts_release());
	timed_waiter_back_ns = litmus_clock();
	H_STORE(&w->released, 1);
	LCHECK_OK(task_mode(BACKGROUND_TASK));
	return NULL;
}

static void test_release_ts_at_absolute_time(void)
{
	int rt_cpu;
	char ts[96];
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	use_private_ts(ts, sizeof(ts));
	struct waiter w = { .cpu = rt_cpu, .prio = 20 };
	CHECK_OK(pthread_create(&w.thread, NULL, ts_timed_waiter, &w));
	WAIT_FOR(get_nr_ts_release_waiters() == 1, 5000);
	lt_t at = litmus_clock() + ms2ns(50);
	CHECK_EQ(release_ts(&at), 1);
	WAIT_FOR(H_LOAD(&w.released), 5000); /* as a delay, `at` would be days away */
	CHECK_OK(pthread_join(w.thread, NULL));
	CHECK(timed_waiter_back_ns >= at);
	unlink_ts(ts);
}

/* Two processes open lock (file, 0) and exclude each other. */
static void test_fmlp_shared_between_processes(void)
{
	int rt_cpu;
	char path[64];
	h_require_rt(&rt_cpu, NULL);
	use_plugin("P-FP");
	int fd = make_namespace(path, sizeof(path));
	int *inside = mmap(NULL, sizeof(int) * 2, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			   -1, 0);
	CHECK(inside != MAP_FAILED);
	pid_t child = fork();
	CHECK_SYS(child);
	int od = -1;
	become_pfp_task(rt_cpu, child == 0 ? 40 : 41, ms2ns(10));
	od = open_fmlp_sem(fd, 0);
	LCHECK_OK(od);
	for (int i = 0; i < 200; i++) {
		LCHECK_OK(litmus_lock(od));
		CHECK_EQ(__atomic_add_fetch(&inside[0], 1, __ATOMIC_ACQ_REL), 1);
		if (i % 20 == 0)
			sched_yield();
		__atomic_add_fetch(&inside[1], 1, __ATOMIC_ACQ_REL);
		CHECK_EQ(__atomic_sub_fetch(&inside[0], 1, __ATOMIC_ACQ_REL), 0);
		LCHECK_OK(litmus_unlock(od));
		if (i % 50 == 0)
			LCHECK_OK(sleep_next_period());
	}
	LCHECK_OK(task_mode(BACKGROUND_TASK));
	exit_litmus();
	if (child == 0)
		_exit(0);
	int status;
	CHECK_SYS(waitpid(child, &status, 0));
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_EQ(H_LOAD(&inside[1]), 400);
	unlink_namespace(path, fd);
}

static const struct h_case cases[] = {
	H_CASE(test_params_invalid, 5000),
	H_CASE(test_edf_short_period_scaled, 5000),
	H_CASE(test_edf_long_period_divided, 5000),
	H_CASE(test_ctrl_page_follows_jobs, 5000),
	H_CASE(test_release_ts_at_absolute_time, 10000),
	H_CASE(test_job_control_non_rt, 5000),
	H_CASE(test_plugins_refused, 5000),
	H_CASE(test_cedf_domains_are_clusters, 5000),
	H_CASE(test_lock_errors_best_effort, 5000),
	H_CASE(test_jobs_advance_on_partition, 10000),
	H_CASE(test_release_ts_releases_exactly_the_waiters, 10000),
	H_CASE(test_lock_partitions_and_owners, 10000),
	H_CASE(test_fmlp_shared_between_processes, 10000),
	H_CASE(test_ceiling_rises_only_while_free, 10000),
	H_CASE(test_gsn_edf_admission_refused, 10000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
