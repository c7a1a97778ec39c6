/* SPDX-License-Identifier: MIT */
/* rt_task parameters: defaults, validation (LITMUS^RT's admission rules), the helpers. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "litmus_clusters.h"
#include "litmus_internal.h"

LITMUS_EXPORT void init_rt_task_param(struct rt_task *p)
{
	memset(p, 0, sizeof(*p));
	p->cls = RT_CLASS_SOFT;
	p->budget_policy = NO_ENFORCEMENT;
	p->release_policy = TASK_SPORADIC;
	p->priority = LITMUS_LOWEST_PRIORITY;
}

static bool cpu_online(unsigned int cpu)
{
	char path[64];
	if (cpu >= CPU_SETSIZE)
		return false;
	if (cpu == 0)
		return true; /* CPU 0 has no "online" file on most machines */
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online", cpu);
	FILE *f = fopen(path, "re");
	if (!f)
		return access(path, F_OK) != 0 && cpu < (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	int online = 0;
	if (fscanf(f, "%d", &online) != 1)
		online = 0;
	fclose(f);
	return online == 1;
}

int litmus_params_check(const struct rt_task *p)
{
	lt_t deadline = p->relative_deadline ? p->relative_deadline : p->period;
	if (p->exec_cost == 0)
		return litmus_fail(EINVAL, "rt_task: exec_cost is 0");
	if (p->period == 0)
		return litmus_fail(EINVAL, "rt_task: period is 0");
	if (p->exec_cost > deadline || p->exec_cost > p->period)
		return litmus_fail(EINVAL, "rt_task: exec_cost %llu ns exceeds the %s (%llu ns)",
				   p->exec_cost, p->exec_cost > p->period ? "period" : "deadline",
				   p->exec_cost > p->period ? p->period : deadline);
	if ((unsigned)p->cls > RT_CLASS_BEST_EFFORT)
		return litmus_fail(EINVAL, "rt_task: unknown class %d", (int)p->cls);
	if ((unsigned)p->budget_policy > PRECISE_ENFORCEMENT)
		return litmus_fail(EINVAL, "rt_task: unknown budget policy %d", (int)p->budget_policy);
	if ((unsigned)p->release_policy > TASK_EARLY)
		return litmus_fail(EINVAL, "rt_task: unknown release policy %d",
				   (int)p->release_policy);
	if (!cpu_online(p->cpu))
		return litmus_fail(EINVAL, "rt_task: CPU %d is not an online CPU", (int)p->cpu);
	return 0;
}

static bool own_thread(pid_t tid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	return access(path, F_OK) == 0;
}

int litmus_tid_resolve(pid_t pid, const char *fn, pid_t *tid)
{
	if (pid < 0)
		return litmus_fail(EINVAL, "%s: pid %d", fn, (int)pid);
	*tid = pid == 0 ? gettid() : pid;
	if (own_thread(*tid))
		return 0;
	if (kill(*tid, 0) == 0)
		return 1;
	if (errno == EPERM)
		return litmus_fail(EPERM, "%s: thread %d belongs to another user", fn, (int)pid);
	return litmus_fail(ESRCH, "%s: no thread %d", fn, (int)pid);
}

/*
 * Copy n bytes between the caller's memory and ours as the kernel would,
 * EFAULT instead of a crash for an address that is not mapped (LITMUS^RT's
 * system calls answer a bad pointer so): process_vm_readv/writev on this
 * process checks the range.
 */
static int copy_checked(void *to, const void *from, size_t n, bool out)
{
	struct iovec here = { .iov_base = out ? (void *)from : to, .iov_len = n };
	struct iovec there = { .iov_base = out ? to : (void *)from, .iov_len = n };
	ssize_t done = out ? process_vm_writev(getpid(), &here, 1, &there, 1, 0)
			   : process_vm_readv(getpid(), &here, 1, &there, 1, 0);
	if (done == (ssize_t)n)
		return 0;
	if (done < 0 && errno != EFAULT) {
		memcpy(to, from, n); /* the check itself was refused (seccomp): trust the pointer */
		return 0;
	}
	return EFAULT;
}

int litmus_params_read(const struct rt_task *user_param, struct rt_task *copy, const char *fn)
{
	if (!user_param)
		return litmus_fail(EINVAL, "%s: NULL parameters", fn);
	if (copy_checked(copy, user_param, sizeof(*copy), false) != 0)
		return litmus_fail(EFAULT, "%s: parameters at %p are not readable", fn,
				   (void *)user_param);
	return 0;
}

int litmus_params_write(struct rt_task *user_param, const struct rt_task *found, const char *fn)
{
	if (copy_checked(user_param, found, sizeof(*found), true) != 0)
		return litmus_fail(EFAULT, "%s: %p is not writable", fn, (void *)user_param);
	return 0;
}

int litmus_params_set_own(pid_t tid, const struct rt_task *param)
{
	if (tid == gettid() && litmus_self()->rt)
		return litmus_fail(EBUSY, "set_rt_task_param: the thread is a real-time task; "
					  "task_mode(BACKGROUND_TASK) first");
	if (litmus_params_store(tid, param) != 0)
		return -1;
	litmus_ok();
	return 0;
}

static int sporadic(lt_t e_ns, lt_t p_ns, int cpu)
{
	struct rt_task p;
	init_rt_task_param(&p);
	p.exec_cost = e_ns;
	p.period = p_ns;
	p.relative_deadline = p_ns;
	if (cpu < 0)
		return litmus_fail(EINVAL, "partition %d", cpu);
	p.cpu = (unsigned)cpu;
	if (litmus_params_check(&p) != 0)
		return -1;
	return litmus_params_set_own(gettid(), &p);
}

LITMUS_EXPORT int sporadic_global(lt_t e_ns, lt_t p_ns)
{
	return sporadic(e_ns, p_ns, 0);
}

LITMUS_EXPORT int sporadic_partitioned(lt_t e_ns, lt_t p_ns, int partition)
{
	return sporadic(e_ns, p_ns, partition);
}

/* The cluster is a domain of the active plugin (C-EDF's clusters); its first CPU names it. */
LITMUS_EXPORT int sporadic_clustered(lt_t e_ns, lt_t p_ns, int cluster)
{
	enum litmus_plugin plugin;
	struct litmus_domain_map map;
	if (litmus_domains_current(&plugin, &map) != 0)
		return -1;
	int cpu = litmus_domain_first_cpu(&map, cluster);
	if (cpu < 0)
		return litmus_fail(EINVAL, "sporadic_clustered: cluster %d does not exist (%s has %d)",
				   cluster, litmus_plugin_name(plugin), map.n_domains);
	return sporadic(e_ns, p_ns, cpu);
}

LITMUS_EXPORT task_class_t str2class(const char *str)
{
	if (str && (strcmp(str, "hrt") == 0 || strcmp(str, "hard") == 0))
		return RT_CLASS_HARD;
	if (str && (strcmp(str, "srt") == 0 || strcmp(str, "soft") == 0))
		return RT_CLASS_SOFT;
	if (str && strcmp(str, "be") == 0)
		return RT_CLASS_BEST_EFFORT;
	return (task_class_t)-1;
}

LITMUS_EXPORT void show_rt_param(struct rt_task *tp)
{
	printf("rt params:\n\texec_cost:\t%llu\n\tperiod:\t\t%llu\n\tcpu:\t%u\n", tp->exec_cost,
	       tp->period, tp->cpu);
}
