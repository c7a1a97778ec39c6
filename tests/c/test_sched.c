/* SPDX-License-Identifier: MIT */
/*
 * <rtsched/sched.h>: policy names, cpuset files (cgroup v1 and v2 layouts,
 * faked in a temporary folder), and refusals explained in words.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rtsched/sched.h>

#include "harness.h"

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CHECK_MSG(f, "cannot create %s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

static long read_number(const char *dir, const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "r");
	CHECK_MSG(f, "cannot open %s: %s", path, strerror(errno));
	long value = -1;
	CHECK(fscanf(f, "%ld", &value) == 1);
	fclose(f);
	return value;
}

static void test_policy_names_round_trip(void)
{
	enum rts_policy p;
	CHECK_OK(rts_policy_parse("fifo", &p));
	CHECK_EQ(p, RTS_POLICY_FIFO);
	CHECK_OK(rts_policy_parse("dl", &p));
	CHECK_EQ(p, RTS_POLICY_DEADLINE);
	CHECK_OK(rts_policy_parse("normal", &p));
	CHECK_EQ(p, RTS_POLICY_OTHER);
	CHECK_ERR(EINVAL, rts_policy_parse("rr", &p));
	const enum rts_policy all[] = { RTS_POLICY_FIFO, RTS_POLICY_DEADLINE, RTS_POLICY_OTHER };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		CHECK_OK(rts_policy_parse(rts_policy_name(all[i]), &p));
		CHECK_EQ(p, all[i]);
	}
}

static void test_cpuset_cpus_are_read(void)
{
	char dir[] = "/tmp/rts_cpusetXXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	bool has = true;
	CHECK_ERR(ENOENT, rts_cpuset_has_cpu(dir, 0, &has));
	CHECK(!has);
	write_file(dir, "cpuset.cpus", "0-1,3\n");
	for (int cpu = 0; cpu < 5; cpu++) {
		CHECK_OK(rts_cpuset_has_cpu(dir, cpu, &has));
		CHECK_EQ(has, cpu != 2 && cpu != 4);
	}
	write_file(dir, "cpuset.cpus.effective", "\n"); /* v2: no CPUs yet */
	CHECK_ERR(EINVAL, rts_cpuset_has_cpu(dir, 0, &has));
	write_file(dir, "cpuset.cpus.effective", "2-\n");
	CHECK_ERR(EINVAL, rts_cpuset_has_cpu(dir, 2, &has));
	write_file(dir, "cpuset.cpus.effective", "2\n");
	CHECK_OK(rts_cpuset_has_cpu(dir, 2, &has));
	CHECK(has);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -r %s", dir);
	CHECK_EQ(system(cmd), 0);
}

/* cgroup v1 has a tasks file; v2 only cgroup.threads. Both get the caller's TID. */
static void test_cpuset_join_writes_the_tid(void)
{
	char v1[] = "/tmp/rts_cpusetXXXXXX", v2[] = "/tmp/rts_cpusetXXXXXX";
	CHECK(mkdtemp(v1) != NULL && mkdtemp(v2) != NULL);
	write_file(v1, "tasks", "");
	write_file(v2, "cgroup.threads", "");
	char why[256] = "";
	CHECK_OK(rts_cpuset_join_self(v1, why, sizeof(why)));
	CHECK_EQ(read_number(v1, "tasks"), (long)gettid());
	CHECK_OK(rts_cpuset_join_self(v2, why, sizeof(why)));
	CHECK_EQ(read_number(v2, "cgroup.threads"), (long)gettid());
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -r %s %s", v1, v2);
	CHECK_EQ(system(cmd), 0);
	CHECK_ERR(ENOENT, rts_cpuset_join_self("/nonexistent/cpuset", why, sizeof(why)));
	CHECK_MSG(strstr(why, "cannot open /nonexistent/cpuset/cgroup.threads"), "why: %s", why);
}

static void test_bad_parameters_are_explained(void)
{
	struct rts_sched_params fifo0 = { .policy = RTS_POLICY_FIFO, .priority = 0 };
	char why[256] = "";
	CHECK_ERR(EINVAL, rts_sched_apply_self(&fifo0, why, sizeof(why)));
	CHECK_MSG(strstr(why, "SCHED_FIFO parameters refused (EINVAL)"), "why: %s", why);
	CHECK_OK(rts_sched_reset_self());
	CHECK_EQ(sched_getscheduler(0), SCHED_OTHER);
}

/* The cpuset mount is found and its control files read; errors are errnos. */
static void test_cpuset_mount_and_files(void)
{
	char path[512], value[256];
	int version = 0;
	int err = rts_cpuset_mount(path, sizeof(path), &version);
	if (err == ENOENT)
		SKIP("no cpuset controller mounted (cgroup v1) and no cgroup v2 hierarchy");
	CHECK_OK(err);
	CHECK(version == 1 || version == 2);
	CHECK_EQ(access(path, F_OK), 0);
	char tiny[2];
	CHECK_ERR(ENAMETOOLONG, rts_cpuset_mount(tiny, sizeof(tiny), &version));
	const char *known = version == 2 ? "cgroup.controllers" : "cpuset.cpus";
	CHECK_OK(rts_cgroup_read(path, known, value, sizeof(value)));
	CHECK(strchr(value, '\n') == NULL);
	CHECK_ERR(ENOENT, rts_cgroup_read(path, "no-such-control-file", value, sizeof(value)));
	CHECK_ERR(ENOENT, rts_cgroup_write(path, "no-such-control-file", "1"));
}

static const struct h_case cases[] = {
	H_CASE(test_cpuset_mount_and_files, 5000),
	H_CASE(test_policy_names_round_trip, 2000),
	H_CASE(test_cpuset_cpus_are_read, 2000),
	H_CASE(test_cpuset_join_writes_the_tid, 2000),
	H_CASE(test_bad_parameters_are_explained, 2000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
