/* SPDX-License-Identifier: MIT */
/*
 * litmus-setsched: choose the LITMUS "plugin" (LITMUS^RT's setsched).
 *
 *   litmus-setsched                      print the active plugin
 *   litmus-setsched PLUGIN               Linux, P-FP, PSN-EDF, GSN-EDF
 *   litmus-setsched C-EDF CLUSTERS       L1, L2, L3 (CPUs sharing that cache), ALL, or a size
 *
 * Writes PLUGIN (and C-EDF's CLUSTERS) to the plugin file
 * (RTSCHED_LITMUS_PLUGIN_FILE, default /run/rtsched/litmus-plugin), which
 * -llitmus reads at task_mode. PSN-EDF and C-EDF also make one exclusive
 * cpuset per domain (a CPU, a cluster: litmus_cpusets.h), each a root domain
 * of its own, so the kernel admits SCHED_DEADLINE threads on the domain's
 * CPUs and runs G-EDF inside each; cgroup v1 turns load balancing off in the
 * root cpuset for that (any other plugin removes the cpusets and turns it
 * back on). Needs root for the cpusets. Exit 1: bad plugin or clusters; 2: a
 * file or cpuset could not be written.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rtsched/sched.h>

#include "litmus_clusters.h"
#include "litmus_cpusets.h"

static const char *const plugins[] = { "Linux", "P-FP", "PSN-EDF", "GSN-EDF", "C-EDF" };

static const char *plugin_file(void)
{
	const char *f = getenv("RTSCHED_LITMUS_PLUGIN_FILE");
	return f && *f ? f : "/run/rtsched/litmus-plugin";
}

static int print_active(void)
{
	char line[64] = "Linux";
	FILE *f = fopen(plugin_file(), "re");
	if (f) {
		if (!fgets(line, sizeof(line), f))
			strcpy(line, "Linux");
		fclose(f);
	}
	line[strcspn(line, "\r\n")] = '\0';
	const char *env = getenv("RTSCHED_LITMUS_PLUGIN");
	printf("%s\n", env && *env ? env : line);
	return 0;
}

static int fail(const char *what, const char *where, int err)
{
	fprintf(stderr, "litmus-setsched: %s %s: %s\n", what, where, strerror(err));
	return 2;
}

static void remove_cpusets(const char *mount, int version)
{
	char dir[256];
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		litmus_cpuset_dir(mount, version, cpu, dir, sizeof(dir));
		if (rmdir(dir) != 0 && errno == ENOENT && cpu >= sysconf(_SC_NPROCESSORS_CONF))
			break;
	}
	if (version == 1) {
		snprintf(dir, sizeof(dir), "%s/" LITMUS_CPUSET_PARENT, mount);
		if (rmdir(dir) == 0 || errno != ENOENT)
			rts_cgroup_write(mount, "cpuset.sched_load_balance", "1");
	}
}

/* "a-b" (or "a") of a domain's CPUs, which are consecutive in every map litmus_clusters.c makes. */
static void domain_cpu_text(const struct litmus_domain_map *map, int domain, char *text, size_t len)
{
	int first = -1, last = -1;
	for (int c = 0; c < map->n_cpus; c++) {
		if (map->of_cpu[c] == domain) {
			if (first < 0)
				first = c;
			last = c;
		}
	}
	if (first == last)
		snprintf(text, len, "%d", first);
	else
		snprintf(text, len, "%d-%d", first, last);
}

static int make_cpusets(const char *mount, int version, const struct litmus_domain_map *map)
{
	char dir[256], mems[64] = "0", cpu_text[32];
	int err;
	rts_cgroup_read(mount, "cpuset.mems", mems, sizeof(mems));
	if (version == 1) {
		char parent[256], all[32];
		snprintf(parent, sizeof(parent), "%s/" LITMUS_CPUSET_PARENT, mount);
		snprintf(all, sizeof(all), "0-%d", map->n_cpus - 1);
		if (mkdir(parent, 0755) != 0 && errno != EEXIST)
			return fail("mkdir", parent, errno);
		if ((err = rts_cgroup_write(parent, "cpuset.cpus", all)) ||
		    (err = rts_cgroup_write(parent, "cpuset.mems", mems)) ||
		    (err = rts_cgroup_write(parent, "cpuset.cpu_exclusive", "1")) ||
		    (err = rts_cgroup_write(parent, "cpuset.sched_load_balance", "0")))
			return fail("configuring", parent, err);
	} else if ((err = rts_cgroup_write(mount, "cgroup.subtree_control", "+cpuset"))) {
		return fail("enabling the cpuset controller in", mount, err);
	}
	for (int domain = 0; domain < map->n_domains; domain++) {
		litmus_cpuset_dir(mount, version, domain, dir, sizeof(dir));
		domain_cpu_text(map, domain, cpu_text, sizeof(cpu_text));
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return fail("mkdir", dir, errno);
		err = rts_cgroup_write(dir, "cpuset.cpus", cpu_text);
		if (!err && version == 1)
			err = rts_cgroup_write(dir, "cpuset.mems", mems);
		if (!err)
			err = version == 1 ? rts_cgroup_write(dir, "cpuset.cpu_exclusive", "1")
					   : rts_cgroup_write(dir, "cpuset.cpus.partition", "root");
		if (!err && version == 1)
			err = rts_cgroup_write(dir, "cpuset.sched_load_balance", "1");
		if (err)
			return fail("configuring", dir, err);
	}
	/* Last: with the root no longer balancing, each child is its own root domain. */
	if (version == 1 && (err = rts_cgroup_write(mount, "cpuset.sched_load_balance", "0")))
		return fail("turning off load balancing of", mount, err);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: litmus-setsched [Linux|P-FP|PSN-EDF|GSN-EDF|C-EDF CLUSTERS]\n"
			"  CLUSTERS: L1, L2 or L3 (CPUs that share that cache), ALL, or a size in CPUs\n");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 1)
		return print_active();
	const char *name = argv[1];
	bool known = false;
	for (size_t i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++)
		known |= strcmp(name, plugins[i]) == 0;
	bool cedf = strcmp(name, "C-EDF") == 0;
	if (!known || argc != (cedf ? 3 : 2))
		return usage();
	int n_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	struct litmus_domain_map map;
	if (cedf) {
		char why[256];
		if (litmus_domains_clusters(argv[2], n_cpus, getenv("RTSCHED_LITMUS_SYSFS_CPU"), &map, why,
					    sizeof(why)) != 0) {
			fprintf(stderr, "litmus-setsched: %s\n", why);
			return 1;
		}
	} else {
		litmus_domains_per_cpu(n_cpus, &map);
	}
	char mount[200];
	int version = 0;
	bool have_cpusets = rts_cpuset_mount(mount, sizeof(mount), &version) == 0;
	if (have_cpusets)
		remove_cpusets(mount, version);
	if (strcmp(name, "PSN-EDF") == 0 || cedf) {
		if (!have_cpusets) {
			fprintf(stderr, "litmus-setsched: %s needs the cpuset cgroup controller "
					"(none is mounted)\n",
				name);
			return 2;
		}
		int ret = make_cpusets(mount, version, &map);
		if (ret) {
			remove_cpusets(mount, version);
			return ret;
		}
	}
	const char *path = plugin_file();
	char dir[256];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0755);
	}
	FILE *f = fopen(path, "we");
	int written = !f ? -1 : cedf ? fprintf(f, "%s %s\n", name, argv[2]) : fprintf(f, "%s\n", name);
	if (written < 0 || fclose(f) != 0)
		return fail("writing", path, errno);
	return 0;
}
