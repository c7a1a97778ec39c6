/* SPDX-License-Identifier: MIT */
#include "syscount.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define TRACEPOINT_ID_FILE "events/raw_syscalls/sys_enter/id"

static bool read_id(const char *tracefs, uint64_t *id)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", tracefs, TRACEPOINT_ID_FILE);
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	unsigned long long v;
	bool ok = fscanf(f, "%llu", &v) == 1;
	fclose(f);
	*id = v;
	return ok;
}

/* A mounted tracefs (or debugfs/tracing) holding the tracepoint's id. */
static bool find_mounted(struct lb_syscount_probe *probe)
{
	FILE *mounts = setmntent("/proc/self/mounts", "r");
	if (!mounts)
		return false;
	bool found = false;
	struct mntent *m;
	while (!found && (m = getmntent(mounts)) != NULL) {
		char dir[128];
		if (strcmp(m->mnt_type, "tracefs") == 0)
			snprintf(dir, sizeof(dir), "%s", m->mnt_dir);
		else if (strcmp(m->mnt_type, "debugfs") == 0)
			snprintf(dir, sizeof(dir), "%s/tracing", m->mnt_dir);
		else
			continue;
		if (read_id(dir, &probe->tracepoint_id)) {
			snprintf(probe->tracefs, sizeof(probe->tracefs), "%s", dir);
			found = true;
		}
	}
	endmntent(mounts);
	return found;
}

void lb_syscount_probe(struct lb_syscount_probe *probe)
{
	memset(probe, 0, sizeof(*probe));
	if (find_mounted(probe)) {
		probe->available = true;
		return;
	}
	/* Not mounted: mount it where the kernel provides a mount point, read the
	 * id and unmount again, leaving the system as it was (libtracefs also
	 * mounts tracefs when it finds none). */
	const char *dir = "/sys/kernel/tracing";
	struct stat st;
	if (stat(dir, &st) != 0) {
		snprintf(probe->reason, sizeof(probe->reason),
			 "tracefs is not mounted and %s does not exist (no CONFIG_TRACING?)", dir);
		return;
	}
	if (mount("nodev", dir, "tracefs", 0, NULL) != 0) {
		int err = errno;
		snprintf(probe->reason, sizeof(probe->reason),
			 "tracefs is not mounted and mounting it failed (%s); run "
			 "'mount -t tracefs nodev %s' as root",
			 strerror(err), dir);
		return;
	}
	bool ok = read_id(dir, &probe->tracepoint_id);
	bool unmounted = umount(dir) == 0;
	if (!ok) {
		snprintf(probe->reason, sizeof(probe->reason),
			 "no %s in tracefs (kernel without syscall tracepoints?)", TRACEPOINT_ID_FILE);
		return;
	}
	probe->available = true;
	snprintf(probe->tracefs, sizeof(probe->tracefs), "%s", dir);
	snprintf(probe->note, sizeof(probe->note), "tracefs was not mounted: mounted at %s to read "
		 "the tracepoint id, then %s", dir, unmounted ? "unmounted" : "left mounted (busy)");
}

static long perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			    unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

void lb_syscount_start(struct lb_syscount *sc)
{
	ioctl(sc->fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(sc->fd, PERF_EVENT_IOC_ENABLE, 0);
}

uint64_t lb_syscount_read(const struct lb_syscount *sc)
{
	uint64_t count = 0;
	if (read(sc->fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
		return 0;
	return count;
}

static uint64_t stop_raw(struct lb_syscount *sc)
{
	ioctl(sc->fd, PERF_EVENT_IOC_DISABLE, 0);
	uint64_t count = 0;
	if (read(sc->fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
		return 0;
	return count;
}

int64_t lb_syscount_stop(struct lb_syscount *sc)
{
	return (int64_t)stop_raw(sc) - (int64_t)sc->overhead;
}

int lb_syscount_open(struct lb_syscount *sc, const struct lb_syscount_probe *probe,
		     char *reason, size_t reason_size)
{
	sc->fd = -1;
	sc->overhead = 0;
	if (!probe->available) {
		snprintf(reason, reason_size, "%s", probe->reason);
		return -ENOENT;
	}
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = probe->tracepoint_id;
	attr.disabled = 1;
	/* sys_enter fires in the kernel: exclude_kernel would hide every event. */
	long fd = perf_event_open(&attr, 0 /* the calling thread */, -1 /* any CPU */,
				  -1 /* no group */, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		snprintf(reason, reason_size,
			 "perf_event_open(raw_syscalls:sys_enter) failed: %s%s", strerror(err),
			 err == EACCES || err == EPERM
				 ? " (needs root, CAP_PERFMON or kernel.perf_event_paranoid <= 1)"
				 : "");
		return -err;
	}
	sc->fd = (int)fd;
	/* The enabling ioctl enters the kernel before counting starts; the
	 * disabling one after: the overhead is that one call (measured, not assumed). */
	uint64_t least = UINT64_MAX;
	for (int i = 0; i < 5; i++) {
		lb_syscount_start(sc);
		uint64_t c = stop_raw(sc);
		if (c < least)
			least = c;
	}
	sc->overhead = least;
	return 0;
}

void lb_syscount_close(struct lb_syscount *sc)
{
	if (sc->fd >= 0)
		close(sc->fd);
	sc->fd = -1;
}
