/* SPDX-License-Identifier: MIT */
/* Cpusets (cgroup v1 or v2): where they are mounted, their control files, the calling thread's membership. */
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
		snprintf(why, why_len, "cannot open %s: %s (is the cgroup created, and are we root?)",
			 path, strerror(err));
		return err;
	}
	char tid[16];
	int len = snprintf(tid, sizeof(tid), "%d", (int)gettid());
	int err = write(fd, tid, (size_t)len) == len ? 0 : errno;
	close(fd);
	if (err)
		snprintf(why, why_len, "joining cgroup %s failed: %s", dir, strerror(err));
	return err;
}

RTS_EXPORT int rts_cgroup_read(const char *dir, const char *file, char *value, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	FILE *f = fopen(path, "re");
	if (!f)
		return errno;
	int err = fgets(value, (int)len, f) ? 0 : EIO;
	fclose(f);
	if (err == 0)
		value[strcspn(value, "\n")] = '\0';
	return err;
}

RTS_EXPORT int rts_cgroup_write(const char *dir, const char *file, const char *value)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ssize_t len = (ssize_t)strlen(value);
	int err = write(fd, value, (size_t)len) == len ? 0 : errno;
	close(fd);
	return err;
}

RTS_EXPORT int rts_cpuset_mount(char *path, size_t path_len, int *version)
{
	FILE *mounts = fopen("/proc/self/mounts", "re");
	if (!mounts)
		return errno;
	char line[1024], v1[512] = "", v2[512] = "";
	while (fgets(line, sizeof(line), mounts)) {
		char device[128], dir[512], type[32], options[512];
		if (sscanf(line, "%127s %511s %31s %511s", device, dir, type, options) != 4)
			continue;
		if (strcmp(type, "cgroup") == 0 && strstr(options, "cpuset") && !v1[0])
			snprintf(v1, sizeof(v1), "%s", dir);
		if (strcmp(type, "cgroup2") == 0 && !v2[0])
			snprintf(v2, sizeof(v2), "%s", dir);
	}
	fclose(mounts);
	const char *found = v1[0] ? v1 : v2;
	if (!found[0])
		return ENOENT;
	if ((size_t)snprintf(path, path_len, "%s", found) >= path_len)
		return ENAMETOOLONG;
	*version = v1[0] ? 1 : 2;
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
	int err = rts_cgroup_read(dir, "cpuset.cpus.effective", buf, sizeof(buf));
	if (err)
		err = rts_cgroup_read(dir, "cpuset.effective_cpus", buf, sizeof(buf));
	if (err)
		err = rts_cgroup_read(dir, "cpuset.cpus", buf, sizeof(buf));
	return err ? err : cpu_list_has(buf, cpu, has);
}
