/* SPDX-License-Identifier: MIT */
/* Cpuset (cgroup v1 or v2) membership of the calling thread. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rtsched/sched.h>

#include "internal/export.h"

RTS_EXPORT int rts_cpuset_join_self(const char *dir, char *why, size_t why_len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/tasks", dir);
	if (access(path, F_OK) != 0) /* cgroup v2: no tasks file */
		snprintf(path, sizeof(path), "%s/cgroup.threads", dir);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		snprintf(why, why_len, "cannot open %s: %s (is the cpuset created, and are we root?)",
			 path, strerror(err));
		return err;
	}
	char tid[16];
	int len = snprintf(tid, sizeof(tid), "%d", (int)gettid());
	int err = write(fd, tid, (size_t)len) == len ? 0 : errno;
	close(fd);
	if (err)
		snprintf(why, why_len, "joining cpuset %s failed: %s", dir, strerror(err));
	return err;
}

static int read_small_file(const char *dir, const char *name, char *buf, size_t size)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ssize_t n = read(fd, buf, size - 1);
	int err = errno;
	close(fd);
	if (n < 0)
		return err;
	buf[n] = '\0';
	return 0;
}

/* Does the kernel's CPU list text ("0-2,5\n") name cpu? 0, or EINVAL if it is malformed. */
static int cpu_list_has(const char *text, int cpu, bool *has)
{
	*has = false;
	const char *p = text;
	for (;;) {
		if (!isdigit((unsigned char)*p))
			return EINVAL;
		char *end;
		long first = strtol(p, &end, 10), last = first;
		if (*end == '-') {
			p = end + 1;
			if (!isdigit((unsigned char)*p))
				return EINVAL;
			last = strtol(p, &end, 10);
		}
		if (first <= cpu && cpu <= last)
			*has = true;
		p = end;
		if (*p != ',')
			return *p == '\n' || *p == '\0' ? 0 : EINVAL;
		p++;
	}
}

RTS_EXPORT int rts_cpuset_has_cpu(const char *dir, int cpu, bool *has)
{
	char buf[4096];
	*has = false;
	int err = read_small_file(dir, "cpuset.cpus.effective", buf, sizeof(buf));
	if (err)
		err = read_small_file(dir, "cpuset.effective_cpus", buf, sizeof(buf));
	if (err)
		err = read_small_file(dir, "cpuset.cpus", buf, sizeof(buf));
	return err ? err : cpu_list_has(buf, cpu, has);
}
