/* SPDX-License-Identifier: MIT */
#include "cgroup.h"

#include "cpulist.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int read_small_file(const char *dir, const char *name, char *buf, size_t size)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ssize_t n = read(fd, buf, size - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		return e;
	buf[n] = '\0';
	return 0;
}

bool rts_cpuset_has_cpu(const char *dir, int cpu)
{
	char buf[4096], err[128];
	struct rts_cpulist set;
	if (read_small_file(dir, "cpuset.cpus.effective", buf, sizeof(buf)) &&
	    read_small_file(dir, "cpuset.effective_cpus", buf, sizeof(buf)) &&
	    read_small_file(dir, "cpuset.cpus", buf, sizeof(buf)))
		return false;
	if (rts_cpulist_parse(buf, &set, err, sizeof(err)))
		return false;
	return rts_cpulist_has(&set, cpu);
}

int rts_cpuset_join_thread(const char *dir)
{
	char path[4096], tid[32];
	snprintf(path, sizeof(path), "%s/tasks", dir);
	if (access(path, W_OK) != 0)
		snprintf(path, sizeof(path), "%s/cgroup.threads", dir);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	int len = snprintf(tid, sizeof(tid), "%ld\n", (long)syscall(SYS_gettid));
	ssize_t n = write(fd, tid, (size_t)len);
	int e = errno;
	close(fd);
	return n == len ? 0 : e;
}
