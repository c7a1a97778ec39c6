/* SPDX-License-Identifier: MIT */
#include "oncpu.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define READ_COST_SAMPLES 63

/* The layout read() returns for PERF_FORMAT_TOTAL_TIME_ENABLED | _RUNNING. */
struct reading {
	uint64_t value;
	uint64_t time_enabled_ns;
	uint64_t time_running_ns;
};

void lb_oncpu_read(const struct lb_oncpu *c, struct lb_oncpu_stamp *s)
{
	struct reading r;
	if (read(c->fd, &r, sizeof(r)) != (ssize_t)sizeof(r)) {
		s->switches = 0;
		s->running_ns = 0;
		return;
	}
	s->switches = r.value;
	s->running_ns = r.time_running_ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

int lb_oncpu_open(struct lb_oncpu *c, char *reason, size_t reason_size)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	c->fd = (int)syscall(SYS_perf_event_open, &attr, 0 /* the calling thread */,
			     -1 /* any CPU */, -1 /* no group */, PERF_FLAG_FD_CLOEXEC);
	if (c->fd < 0) {
		int err = errno;
		snprintf(reason, reason_size,
			 "perf_event_open(context-switches, this thread) failed: %s%s",
			 strerror(err),
			 err == EACCES || err == EPERM
				 ? " (needs root, CAP_PERFMON or kernel.perf_event_paranoid <= 1)"
				 : "");
		return -err;
	}
	uint64_t cost[READ_COST_SAMPLES];
	size_t n = 0;
	for (int attempt = 0; attempt < 10 * READ_COST_SAMPLES && n < READ_COST_SAMPLES; attempt++) {
		struct lb_oncpu_stamp a, b;
		lb_oncpu_read(c, &a);
		lb_oncpu_read(c, &b);
		if (b.switches == a.switches) /* not preempted in between */
			cost[n++] = b.running_ns - a.running_ns;
	}
	qsort(cost, n, sizeof(cost[0]), cmp_u64);
	c->read_cost_ns = n ? cost[n / 2] : 0;
	return 0;
}

void lb_oncpu_close(struct lb_oncpu *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
