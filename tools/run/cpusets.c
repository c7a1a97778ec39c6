/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rtsched/sched.h>

#include "cpusets.h"

#define STATE_DIR "/run/rtsched"
#define STATE_FILE STATE_DIR "/run-cpusets"
#define RUN_DIR_NAME "rtsched-run"

struct mount_info {
	char path[CPUSET_DIR_MAX];
	int version; /* 1 or 2 */
};

static int find_cpuset_mount(struct mount_info *mount)
{
	return rts_cpuset_mount(mount->path, sizeof(mount->path), &mount->version) == 0 ? 0 : -1;
}

static void cpu_list(const cpu_set_t *cpus, char *out, size_t len)
{
	size_t used = 0;
	out[0] = '\0';
	for (int cpu = 0; cpu < CPU_SETSIZE && used < len; cpu++)
		if (CPU_ISSET(cpu, cpus))
			used += (size_t)snprintf(out + used, len - used, "%s%d", used ? "," : "", cpu);
}

/* Move every task of dir back to the root cpuset, then remove dir. */
static void remove_cpuset(const char *dir, const char *root)
{
	char path[CPUSET_DIR_MAX + 16];
	snprintf(path, sizeof(path), "%s/tasks", dir);
	FILE *tasks = fopen(path, "re");
	if (tasks) {
		char tid[32];
		while (fgets(tid, sizeof(tid), tasks))
			rts_cgroup_write(root, "tasks", tid);
		fclose(tasks);
	}
	rmdir(dir);
}

static int save_state(const struct run_cpusets *cpusets, const char *root)
{
	mkdir(STATE_DIR, 0700);
	FILE *state = fopen(STATE_FILE, "we");
	if (!state)
		return errno;
	fprintf(state, "pid %d\nroot %s\nload_balance %d\nparent %s\n", (int)getpid(), root,
		cpusets->root_load_balance, cpusets->parent[0] ? cpusets->parent : "-");
	for (size_t i = 0; i < cpusets->count; i++)
		fprintf(state, "dir %s\n", cpusets->dirs[i]);
	int err = fclose(state) == 0 ? 0 : errno;
	return err;
}

int run_cpusets_clean_leftovers(char *error, size_t error_len)
{
	FILE *state = fopen(STATE_FILE, "re");
	if (!state)
		return 0;
	char line[CPUSET_DIR_MAX + 32], root[CPUSET_DIR_MAX] = "", parent[CPUSET_DIR_MAX] = "";
	int pid = 0, load_balance = -1;
	char dirs[16][CPUSET_DIR_MAX];
	size_t n_dirs = 0;
	while (fgets(line, sizeof(line), state)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "pid %d", &pid) == 1 || sscanf(line, "load_balance %d", &load_balance) == 1)
			continue;
		if (strncmp(line, "root ", 5) == 0)
			snprintf(root, sizeof(root), "%s", line + 5);
		else if (strncmp(line, "parent ", 7) == 0)
			snprintf(parent, sizeof(parent), "%s", line + 7);
		else if (strncmp(line, "dir ", 4) == 0 && n_dirs < 16)
			snprintf(dirs[n_dirs++], CPUSET_DIR_MAX, "%s", line + 4);
	}
	fclose(state);
	if (pid > 0 && pid != getpid() && kill(pid, 0) == 0) {
		snprintf(error, error_len,
			 "another rtsched-run (pid %d) holds the P-EDF cpusets (%s); wait for it "
			 "or stop it",
			 pid, STATE_FILE);
		return -1;
	}
	for (size_t i = 0; i < n_dirs; i++)
		remove_cpuset(dirs[i], root);
	if (strcmp(parent, "-") != 0 && parent[0])
		rmdir(parent);
	if (load_balance >= 0) {
		char value[8];
		snprintf(value, sizeof(value), "%d", load_balance);
		rts_cgroup_write(root, "cpuset.sched_load_balance", value);
	}
	unlink(STATE_FILE);
	fprintf(stderr,
		"rtsched-run: removed %zu cpuset(s) left by an earlier run (pid %d) and restored "
		"the root cpuset's load balancing\n",
		n_dirs, pid);
	return 0;
}

static int fail(char *error, size_t error_len, const char *what, const char *where, int err)
{
	snprintf(error, error_len, "P-EDF cpusets: %s %s: %s%s", what, where, strerror(err),
		 err == EINVAL ? " (another exclusive cpuset, e.g. a shield, may overlap these "
				 "CPUs: undo it first)"
			       : err == EACCES || err == EPERM ? " (needs root)" : "");
	return -1;
}

/*
 * Cpuset i of the run at `dir`: recorded in the state file before it exists
 * (so a crash right after is cleaned up), then made, with its CPU list in
 * `cpus`. 0 or -1 with `error`.
 */
static int make_child(const struct run_spec *spec, size_t i, const char *dir,
		      const struct mount_info *mount, struct run_cpusets *cpusets, char cpus[256],
		      char *error, size_t error_len)
{
	snprintf(cpusets->dirs[i], CPUSET_DIR_MAX, "%s", dir);
	cpusets->count = i + 1;
	int err = save_state(cpusets, mount->path);
	if (err)
		return fail(error, error_len, "writing", STATE_FILE, err);
	cpu_list(&spec->cpusets[i].cpus, cpus, 256);
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		return fail(error, error_len, "creating", dir, errno);
	return 0;
}

static int create_v1(const struct run_spec *spec, const struct mount_info *mount,
		     struct run_cpusets *cpusets, char *error, size_t error_len)
{
	char value[64], mems[64], all_cpus[256];
	if (rts_cgroup_read(mount->path, "cpuset.mems", mems, sizeof(mems)) != 0)
		return fail(error, error_len, "reading", "the root cpuset's mems", errno);
	if (rts_cgroup_read(mount->path, "cpuset.sched_load_balance", value, sizeof(value)) == 0)
		cpusets->root_load_balance = atoi(value);
	snprintf(cpusets->parent, sizeof(cpusets->parent), "%s/%s", mount->path, RUN_DIR_NAME);
	int err = save_state(cpusets, mount->path);
	if (err)
		return fail(error, error_len, "writing", STATE_FILE, err);

	cpu_set_t all;
	CPU_ZERO(&all);
	for (size_t i = 0; i < spec->n_cpusets; i++)
		CPU_OR(&all, &all, &spec->cpusets[i].cpus);
	cpu_list(&all, all_cpus, sizeof(all_cpus));
	if (mkdir(cpusets->parent, 0755) != 0 && errno != EEXIST)
		return fail(error, error_len, "creating", cpusets->parent, errno);
	if ((err = rts_cgroup_write(cpusets->parent, "cpuset.cpus", all_cpus)) ||
	    (err = rts_cgroup_write(cpusets->parent, "cpuset.mems", mems)) ||
	    (err = rts_cgroup_write(cpusets->parent, "cpuset.cpu_exclusive", "1")) ||
	    (err = rts_cgroup_write(cpusets->parent, "cpuset.sched_load_balance", "0")))
		return fail(error, error_len, "configuring", cpusets->parent, err);
	for (size_t i = 0; i < spec->n_cpusets; i++) {
		char dir[CPUSET_DIR_MAX], cpus[256];
		snprintf(dir, sizeof(dir), "%s/%s", cpusets->parent, spec->cpusets[i].name);
		if (make_child(spec, i, dir, mount, cpusets, cpus, error, error_len) != 0)
			return -1;
		if ((err = rts_cgroup_write(dir, "cpuset.cpus", cpus)) ||
		    (err = rts_cgroup_write(dir, "cpuset.mems", mems)) ||
		    (err = rts_cgroup_write(dir, "cpuset.cpu_exclusive", "1")) ||
		    (err = rts_cgroup_write(dir, "cpuset.sched_load_balance", "1")))
			return fail(error, error_len, "configuring", dir, err);
	}
	/* Last: with the root no longer balancing, each child is its own root domain. */
	if ((err = rts_cgroup_write(mount->path, "cpuset.sched_load_balance", "0")) != 0)
		return fail(error, error_len, "turning off load balancing of", mount->path, err);
	return 0;
}

static int create_v2(const struct run_spec *spec, const struct mount_info *mount,
		     struct run_cpusets *cpusets, char *error, size_t error_len)
{
	int err = rts_cgroup_write(mount->path, "cgroup.subtree_control", "+cpuset");
	if (err)
		return fail(error, error_len, "enabling the cpuset controller in", mount->path, err);
	for (size_t i = 0; i < spec->n_cpusets; i++) {
		char dir[CPUSET_DIR_MAX], cpus[256];
		snprintf(dir, sizeof(dir), "%s/%s.%s", mount->path, RUN_DIR_NAME, spec->cpusets[i].name);
		if (make_child(spec, i, dir, mount, cpusets, cpus, error, error_len) != 0)
			return -1;
		if ((err = rts_cgroup_write(dir, "cpuset.cpus", cpus)) ||
		    (err = rts_cgroup_write(dir, "cpuset.cpus.partition", "root")))
			return fail(error, error_len, "configuring", dir, err);
	}
	return 0;
}

int run_cpusets_create(const struct run_spec *spec, struct run_cpusets *cpusets, char *error,
		       size_t error_len)
{
	memset(cpusets, 0, sizeof(*cpusets));
	cpusets->root_load_balance = -1;
	if (spec->n_cpusets == 0)
		return 0;
	cpusets->dirs = calloc(spec->n_cpusets, sizeof(*cpusets->dirs));
	if (!cpusets->dirs)
		return fail(error, error_len, "allocating", "", ENOMEM);
	struct mount_info mount;
	if (find_cpuset_mount(&mount) != 0) {
		snprintf(error, error_len,
			 "P-EDF cpusets: no cpuset cgroup mounted (cgroup v1 cpuset or cgroup v2)");
		return -1;
	}
	int ret = mount.version == 1 ? create_v1(spec, &mount, cpusets, error, error_len)
				     : create_v2(spec, &mount, cpusets, error, error_len);
	if (ret != 0)
		run_cpusets_remove(cpusets);
	return ret;
}

void run_cpusets_remove(struct run_cpusets *cpusets)
{
	if (!cpusets->dirs)
		return;
	struct mount_info mount;
	if (find_cpuset_mount(&mount) == 0) {
		if (cpusets->root_load_balance >= 0) {
			char value[8];
			snprintf(value, sizeof(value), "%d", cpusets->root_load_balance);
			rts_cgroup_write(mount.path, "cpuset.sched_load_balance", value);
		}
		for (size_t i = cpusets->count; i-- > 0;)
			remove_cpuset(cpusets->dirs[i], mount.path);
		if (cpusets->parent[0])
			rmdir(cpusets->parent);
	}
	unlink(STATE_FILE);
	free(cpusets->dirs);
	cpusets->dirs = NULL;
}
