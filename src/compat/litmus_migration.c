/* SPDX-License-Identifier: MIT */
/*
 * Domains (LITMUS^RT's migration.h), the active plugin's (litmus_clusters.h):
 * under the partitioned plugins a domain is one CPU, under GSN-EDF the only
 * domain, 0, is every online CPU, under C-EDF a domain is a cluster. There is
 * no release master (LITMUS's dedicated interrupt CPU): release_master() is -1.
 */
#include <errno.h>
#include <sched.h>
#include <unistd.h>

#include "litmus_clusters.h"
#include "litmus_internal.h"

LITMUS_EXPORT int num_online_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

LITMUS_EXPORT int release_master(void)
{
	return -1;
}

static int migrate(pid_t tid, const cpu_set_t *cpus, const char *fn)
{
	if (tid < 0)
		return litmus_fail(EINVAL, "%s: tid %d", fn, (int)tid);
	if (sched_setaffinity(tid, sizeof(*cpus), cpus) != 0)
		return litmus_fail(errno, "%s: affinity refused for thread %d (%s)", fn, (int)tid,
				   errno == ESRCH ? "no such thread" : "CPU outside the cpuset?");
	litmus_ok();
	return 0;
}

LITMUS_EXPORT int be_migrate_thread_to_cpu(pid_t tid, int target_cpu)
{
	if (target_cpu < 0 || target_cpu >= num_online_cpus())
		return litmus_fail(EINVAL, "be_migrate_thread_to_cpu: CPU %d is not online",
				   target_cpu);
	cpu_set_t cpus;
	CPU_ZERO(&cpus);
	CPU_SET(target_cpu, &cpus);
	return migrate(tid, &cpus, "be_migrate_thread_to_cpu");
}

LITMUS_EXPORT int be_migrate_thread_to_domain(pid_t tid, int domain)
{
	enum litmus_plugin plugin;
	struct litmus_domain_map map;
	if (litmus_domains_current(&plugin, &map) != 0)
		return -1;
	if (domain < 0 || domain >= map.n_domains)
		return litmus_fail(EINVAL, "be_migrate_thread_to_domain: %s has %d domain%s, 0..%d "
					   "(got %d)",
				   litmus_plugin_name(plugin), map.n_domains,
				   map.n_domains == 1 ? "" : "s", map.n_domains - 1, domain);
	cpu_set_t cpus;
	litmus_domain_cpus(&map, domain, &cpus);
	return migrate(tid, &cpus, "be_migrate_thread_to_domain");
}

LITMUS_EXPORT int be_migrate_to_cpu(int target_cpu)
{
	return be_migrate_thread_to_cpu(0, target_cpu);
}

LITMUS_EXPORT int be_migrate_to_domain(int domain)
{
	return be_migrate_thread_to_domain(0, domain);
}

LITMUS_EXPORT int domain_to_first_cpu(int domain)
{
	enum litmus_plugin plugin;
	struct litmus_domain_map map;
	if (litmus_domains_current(&plugin, &map) != 0)
		return -1;
	int cpu = litmus_domain_first_cpu(&map, domain);
	if (cpu < 0)
		return litmus_fail(EINVAL, "domain %d does not exist (%s has %d)", domain,
				   litmus_plugin_name(plugin), map.n_domains);
	return cpu;
}

LITMUS_EXPORT int partition_to_cpu(int partition)
{
	return domain_to_first_cpu(partition);
}

LITMUS_EXPORT int cluster_to_first_cpu(int cluster, int cluster_size)
{
	if (cluster_size < 1 || cluster < 0 || (long)cluster * cluster_size >= num_online_cpus())
		return litmus_fail(EINVAL, "cluster_to_first_cpu: cluster %d of %d CPUs is not online "
					   "(%d CPUs)",
				   cluster, cluster_size, num_online_cpus());
	return cluster * cluster_size;
}
