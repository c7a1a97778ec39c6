/* SPDX-License-Identifier: MIT */
/*
 * The scheduling domains of a LITMUS plugin: which domain each online CPU
 * is in (LITMUS^RT's /proc/litmus/domains). Partitioned plugins (P-FP,
 * PSN-EDF): one domain per CPU; GSN-EDF: one domain of every CPU; C-EDF:
 * clusters, given as LITMUS^RT's C-EDF takes them (its "cluster" setting) or
 * by size. Pure: shared by -llitmus and litmus-setsched, errors as an errno
 * and a sentence, never through litmus_fail.
 */
#ifndef RTSCHED_COMPAT_LITMUS_CLUSTERS_H
#define RTSCHED_COMPAT_LITMUS_CLUSTERS_H

#include <sched.h>
#include <stddef.h>

/* Invariant: domains are numbered 0..n_domains-1 in the order of their first
 * CPU, and every CPU 0..n_cpus-1 is in exactly one. */
struct litmus_domain_map {
	int n_cpus;
	int n_domains;
	short of_cpu[CPU_SETSIZE];
};

/* Each CPU its own domain (P-FP, PSN-EDF). */
void litmus_domains_per_cpu(int n_cpus, struct litmus_domain_map *map);
/* One domain of every CPU (GSN-EDF). */
void litmus_domains_global(int n_cpus, struct litmus_domain_map *map);
/*
 * C-EDF's clusters from SPEC: "L1", "L2" or "L3" (the CPUs that share that
 * level's data or unified cache, read from SYSFS_CPU/cpuN/cache/index*; NULL
 * for /sys/devices/system/cpu), "ALL" (one cluster), or a size N (CPUs 0..N-1,
 * N..2N-1, ...; the last may be smaller). 0, or EINVAL / ENOENT with WHY.
 */
int litmus_domains_clusters(const char *spec, int n_cpus, const char *sysfs_cpu,
			    struct litmus_domain_map *map, char *why, size_t len);
/* The CPUs of DOMAIN (empty if there is no such domain). */
void litmus_domain_cpus(const struct litmus_domain_map *map, int domain, cpu_set_t *cpus);
/* The lowest CPU of DOMAIN, or -1. */
int litmus_domain_first_cpu(const struct litmus_domain_map *map, int domain);

#endif
