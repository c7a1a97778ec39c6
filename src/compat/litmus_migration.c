/* SPDX-License-Identifier: MIT */
/*
 * Domains (LITMUS^RT's migration.h), the active plugin's (litmus_clusters.h):
 * under the partitioned plugins a domain is one CPU, under GSN-EDF the only
 * domain, 0, is every online CPU, under C-EDF a domain is a cluster. There is
 * no release master (LITMUS's dedicated interrupt CPU): release_master() is -1.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
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

LITMUS_EXPORT int be_migrate_thread_to_cluster(pid_t tid, int domain)
{
	return be_migrate_thread_to_domain(tid, domain);
}

LITMUS_EXPORT int be_migrate_to_cluster(int cluster, int cluster_sz)
{
	(void)cluster_sz; /* unused in LITMUS^RT too: the plugin's clusters decide */
	return be_migrate_thread_to_domain(0, cluster);
}

/* by_domain: the CPUs (0..63) of domain arg; else the domains of CPU arg. */
static int domain_mask(int arg, bool by_domain, unsigned long long int *mask, const char *fn)
{
	enum litmus_plugin plugin;
	struct litmus_domain_map map;
	if (!mask)
		return litmus_fail(EINVAL, "%s: NULL mask", fn);
	if (litmus_domains_current(&plugin, &map) != 0)
		return -1;
	if (map.n_cpus > 64)
		return litmus_fail(EINVAL, "%s: %d CPUs do not fit a 64-bit mask", fn, map.n_cpus);
	if (arg < 0 || arg >= (by_domain ? map.n_domains : map.n_cpus))
		return litmus_fail(EINVAL, "%s: %s %d does not exist (%s: %d domains, %d CPUs)", fn,
				   by_domain ? "domain" : "CPU", arg, litmus_plugin_name(plugin),
				   map.n_domains, map.n_cpus);
	*mask = 0;
	for (int cpu = 0; cpu < map.n_cpus; cpu++) {
		if (by_domain && map.of_cpu[cpu] == arg)
			*mask |= 1ull << cpu;
		if (!by_domain && cpu == arg)
			*mask |= 1ull << map.of_cpu[cpu]; /* a CPU is in exactly one domain */
	}
	litmus_ok();
	return 0;
}

LITMUS_EXPORT int domain_to_cpus(int domain, unsigned long long int *mask)
{
	return domain_mask(domain, true, mask, "domain_to_cpus");
}

LITMUS_EXPORT int cpu_to_domains(int cpu, unsigned long long int *mask)
{
	return domain_mask(cpu, false, mask, "cpu_to_domains");
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * The kernel's CPU mask text: hex digits, most significant first, in groups
 * of 8 separated by commas. Read from the right: the k-th digit from the end
 * (commas skipped) holds CPUs 4k..4k+3.
 */
LITMUS_EXPORT void set_mapping(char *buf, int len, cpu_set_t **set, size_t *sz)
{
	*set = NULL;
	*sz = 0;
	int digits = 0;
	for (int i = 0; buf && i < len; i++) {
		if (buf[i] == ',')
			continue;
		if (hex_digit(buf[i]) < 0)
			return;
		digits++;
	}
	if (digits == 0)
		return;
	cpu_set_t *cpus = CPU_ALLOC(digits * 4);
	if (!cpus)
		return;
	size_t bytes = CPU_ALLOC_SIZE(digits * 4);
	CPU_ZERO_S(bytes, cpus);
	for (int i = len - 1, k = 0; i >= 0; i--) {
		if (buf[i] == ',')
			continue;
		int d = hex_digit(buf[i]);
		for (int bit = 0; bit < 4; bit++)
			if (d & (1 << bit))
				CPU_SET_S(4 * k + bit, bytes, cpus);
		k++;
	}
	*set = cpus;
	*sz = bytes;
}
