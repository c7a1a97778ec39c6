/* SPDX-License-Identifier: MIT */
/*
 * litmus-setsched: choose the LITMUS "plugin" (LITMUS^RT's setsched).
 *
 *   litmus-setsched                 print the active plugin
 *   litmus-setsched PLUGIN          Linux, P-FP, PSN-EDF, GSN-EDF (C-EDF is refused)
 *
 * Writes PLUGIN to the plugin file (RTSCHED_LITMUS_PLUGIN_FILE, default
 * /run/rtsched/litmus-plugin), which -llitmus reads at task_mode. PSN-EDF
 * also makes one exclusive cpuset per online CPU (litmus_cpusets.h), each a
 * root domain of its own, so the kernel admits SCHED_DEADLINE threads pinned
 * to one CPU; cgroup v1 turns load balancing off in the root cpuset for that
 * (any other plugin removes the cpusets and turns it back on). Needs root
 * for the cpusets. Exit 1: bad plugin; 2: a file or cpuset could not be written.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rtsched/sched.h>

#include "litmus_cpusets.h"

static const char *const plugins[] = { "Linux", "P-FP", "PSN-EDF", "GSN-EDF" };

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

static int make_cpusets(const char *mount, int version)
{
	char dir[256], mems[64] = "0", cpu_text[16];
	int err;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	rts_cgroup_read(mount, "cpuset.mems", mems, sizeof(mems));
	if (version == 1) {
		char parent[256], all[32];
		snprintf(parent, sizeof(parent), "%s/" LITMUS_CPUSET_PARENT, mount);
		snprintf(all, sizeof(all), "0-%ld", ncpu - 1);
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
	for (int cpu = 0; cpu < ncpu; cpu++) {
		litmus_cpuset_dir(mount, version, cpu, dir, sizeof(dir));
		snprintf(cpu_text, sizeof(cpu_text), "%d", cpu);
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

int main(int argc, char **argv)
{
	if (argc == 1)
		return print_active();
	const char *name = argv[1];
	bool known = false;
	for (size_t i = 0; i < sizeof(plugins) / sizeof(plugins[0]); i++)
		known |= strcmp(name, plugins[i]) == 0;
	if (argc != 2 || !known) {
		fprintf(stderr, "usage: litmus-setsched [Linux|P-FP|PSN-EDF|GSN-EDF]%s\n",
			strcmp(name, "C-EDF") == 0 ? " (C-EDF: clusters are not mapped yet)" : "");
		return 1;
	}
	char mount[200];
	int version = 0;
	bool have_cpusets = rts_cpuset_mount(mount, sizeof(mount), &version) == 0;
	if (have_cpusets)
		remove_cpusets(mount, version);
	if (strcmp(name, "PSN-EDF") == 0) {
		if (!have_cpusets) {
			fprintf(stderr, "litmus-setsched: PSN-EDF needs the cpuset cgroup controller "
					"(none is mounted)\n");
			return 2;
		}
		int ret = make_cpusets(mount, version);
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
	if (!f || fprintf(f, "%s\n", name) < 0 || fclose(f) != 0)
		return fail("writing", path, errno);
	return 0;
}
