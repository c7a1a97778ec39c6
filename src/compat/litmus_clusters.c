/* SPDX-License-Identifier: MIT */
/*
 * Domains and C-EDF clusters (litmus_clusters.h). A cache level's clusters
 * come from sysfs: for each CPU, the shared_cpu_list of its data or unified
 * cache of that level; CPUs with the same list form one cluster, as LITMUS^RT's
 * C-EDF builds them from the kernel's cache topology.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "litmus_clusters.h"

#define SYSFS_CPU_DEFAULT "/sys/devices/system/cpu"
#define CACHE_INDEX_MAX 16
#define LIST_MAX 256

void litmus_domains_per_cpu(int n_cpus, struct litmus_domain_map *map)
{
	map->n_cpus = n_cpus;
	map->n_domains = n_cpus;
	for (int c = 0; c < n_cpus; c++)
		map->of_cpu[c] = (short)c;
}

void litmus_domains_global(int n_cpus, struct litmus_domain_map *map)
{
	map->n_cpus = n_cpus;
	map->n_domains = 1;
	for (int c = 0; c < n_cpus; c++)
		map->of_cpu[c] = 0;
}

static int read_line(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return errno;
	char *got = fgets(out, (int)len, f);
	fclose(f);
	if (!got)
		return EIO;
	out[strcspn(out, "\r\n")] = '\0';
	return 0;
}

/* CPU's shared_cpu_list for its cache of LEVEL (not an instruction cache). */
static int shared_list(const char *sysfs, int cpu, int level, char *list, size_t len)
{
	char path[512], text[64];
	for (int i = 0; i < CACHE_INDEX_MAX; i++) {
		snprintf(path, sizeof(path), "%s/cpu%d/cache/index%d/level", sysfs, cpu, i);
		if (read_line(path, text, sizeof(text)) != 0)
			break;
		if (atoi(text) != level)
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d/cache/index%d/type", sysfs, cpu, i);
		if (read_line(path, text, sizeof(text)) == 0 && strcmp(text, "Instruction") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d/cache/index%d/shared_cpu_list", sysfs, cpu, i);
		return read_line(path, list, len);
	}
	return ENOENT;
}

static int by_cache_level(int level, int n_cpus, const char *sysfs, struct litmus_domain_map *map,
			  char *why, size_t len)
{
	char (*lists)[LIST_MAX] = malloc((size_t)n_cpus * LIST_MAX); /* one per domain */
	if (!lists) {
		snprintf(why, len, "C-EDF L%d: out of memory", level);
		return ENOMEM;
	}
	map->n_cpus = n_cpus;
	map->n_domains = 0;
	for (int c = 0; c < n_cpus; c++) {
		char list[LIST_MAX];
		if (shared_list(sysfs, c, level, list, sizeof(list)) != 0) {
			snprintf(why, len, "C-EDF L%d: CPU %d has no level-%d data or unified cache in %s",
				 level, c, level, sysfs);
			free(lists);
			return ENOENT;
		}
		int domain = 0;
		while (domain < map->n_domains && strcmp(lists[domain], list) != 0)
			domain++;
		if (domain == map->n_domains)
			memcpy(lists[map->n_domains++], list, LIST_MAX);
		map->of_cpu[c] = (short)domain;
	}
	free(lists);
	return 0;
}

int litmus_domains_clusters(const char *spec, int n_cpus, const char *sysfs_cpu,
			    struct litmus_domain_map *map, char *why, size_t len)
{
	if (n_cpus < 1 || n_cpus > CPU_SETSIZE) {
		snprintf(why, len, "%d online CPUs", n_cpus);
		return EINVAL;
	}
	if (!spec || !*spec) {
		snprintf(why, len, "C-EDF needs its clusters: a cache level (L1, L2, L3), ALL, or "
				   "a cluster size in CPUs");
		return EINVAL;
	}
	if (strcmp(spec, "ALL") == 0) {
		litmus_domains_global(n_cpus, map);
		return 0;
	}
	if (spec[0] == 'L' && spec[1] >= '1' && spec[1] <= '3' && spec[2] == '\0')
		return by_cache_level(spec[1] - '0', n_cpus, sysfs_cpu ? sysfs_cpu : SYSFS_CPU_DEFAULT,
				      map, why, len);
	char *end;
	errno = 0;
	long size = strtol(spec, &end, 10);
	if (errno || *end || end == spec || size < 1 || size > n_cpus) {
		snprintf(why, len, "C-EDF clusters \"%s\": a cache level (L1, L2, L3), ALL, or a size "
				   "of 1..%d CPUs",
			 spec, n_cpus);
		return EINVAL;
	}
	map->n_cpus = n_cpus;
	map->n_domains = (int)((n_cpus + size - 1) / size);
	for (int c = 0; c < n_cpus; c++)
		map->of_cpu[c] = (short)(c / size);
	return 0;
}

void litmus_domain_cpus(const struct litmus_domain_map *map, int domain, cpu_set_t *cpus)
{
	CPU_ZERO(cpus);
	for (int c = 0; c < map->n_cpus; c++)
		if (map->of_cpu[c] == domain)
			CPU_SET(c, cpus);
}

int litmus_domain_first_cpu(const struct litmus_domain_map *map, int domain)
{
	for (int c = 0; c < map->n_cpus; c++)
		if (map->of_cpu[c] == domain)
			return c;
	return -1;
}
