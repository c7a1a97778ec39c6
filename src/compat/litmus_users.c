/* SPDX-License-Identifier: MIT */
/* The processes attached to a LITMUS lock table or the release word (litmus_users.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "litmus_users.h"

/* Field 22 of /proc/PID/stat (starttime, clock ticks after boot); 0 if unreadable. */
static uint64_t start_ticks_of(pid_t pid)
{
	char path[48], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* The name (field 2) may hold spaces and ')': fields 3.. follow the last ')'. */
	char *p = strrchr(buf, ')');
	if (!p)
		return 0;
	for (int field = 2; field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return 0;
	}
	return strtoull(p + 1, NULL, 10);
}

struct litmus_user litmus_user_of(pid_t pid)
{
	return (struct litmus_user){ .pid = (int32_t)pid, .start_ticks = start_ticks_of(pid) };
}

struct litmus_user litmus_user_self(void)
{
	return litmus_user_of(getpid());
}

bool litmus_user_alive(const struct litmus_user *u)
{
	if (u->pid <= 0)
		return false;
	if (kill((pid_t)u->pid, 0) != 0 && errno == ESRCH)
		return false;
	if (u->start_ticks == 0)
		return true; /* no /proc when it registered: the pid alone */
	uint64_t now = start_ticks_of((pid_t)u->pid);
	return now == 0 || now == u->start_ticks; /* unreadable now: alive, as kill says */
}

static bool same(const struct litmus_user *a, const struct litmus_user *b)
{
	return a->pid == b->pid && a->start_ticks == b->start_ticks;
}

int litmus_users_add(struct litmus_user *users, int n, const struct litmus_user *self)
{
	struct litmus_user *free_entry = NULL;
	for (int i = 0; i < n; i++) {
		if (same(&users[i], self))
			return 0;
		if (!free_entry && (users[i].pid <= 0 || !litmus_user_alive(&users[i])))
			free_entry = &users[i];
	}
	if (!free_entry)
		return ENOSPC;
	*free_entry = *self;
	return 0;
}

void litmus_users_remove(struct litmus_user *users, int n, const struct litmus_user *self)
{
	for (int i = 0; i < n; i++)
		if (same(&users[i], self))
			users[i] = (struct litmus_user){ 0 };
}

int litmus_users_prune(struct litmus_user *users, int n)
{
	int live = 0;
	for (int i = 0; i < n; i++) {
		if (users[i].pid <= 0)
			continue;
		if (litmus_user_alive(&users[i]))
			live++;
		else
			users[i] = (struct litmus_user){ 0 };
	}
	return live;
}
