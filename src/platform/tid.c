/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal/tid.h"

__thread uint32_t rts_tid_cache __attribute__((tls_model("initial-exec")));

uint32_t rts_tid_fetch(void)
{
	rts_tid_cache = (uint32_t)gettid();
	return rts_tid_cache;
}

/*
 * kill(tid, 0) finds any thread; a thread-group leader that has ended while
 * other threads of its process run is still found, as a zombie (state Z in
 * /proc/TID/stat): the kernel treats it as gone (FUTEX_LOCK_PI: ESRCH), so
 * does this.
 */
bool rts_tid_alive(uint32_t tid)
{
	if (tid == 0 || tid > RTS_TID_MAX)
		return false;
	if (tid & RTS_TID_ULT_BIT)
		return true;
	if (kill((pid_t)tid, 0) != 0 && errno == ESRCH)
		return false; /* EPERM: another user's thread, alive */
	char path[32], buf[256];
	snprintf(path, sizeof(path), "/proc/%u/stat", (unsigned)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	const char *state = strrchr(buf, ')'); /* "pid (name) S ...": the name may hold ')' */
	return !state || (state[2] != 'Z' && state[2] != 'X');
}

static void forget_tid_in_child(void)
{
	rts_tid_cache = 0;
}

__attribute__((constructor)) static void register_fork_handler(void)
{
	pthread_atfork(NULL, NULL, forget_tid_in_child);
}
