/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "internal/tid.h"

__thread uint32_t rts_tid_cache __attribute__((tls_model("initial-exec")));

uint32_t rts_tid_fetch(void)
{
	rts_tid_cache = (uint32_t)gettid();
	return rts_tid_cache;
}

bool rts_tid_alive(uint32_t tid)
{
	if (tid == 0 || tid > RTS_TID_MAX)
		return false;
	return kill((pid_t)tid, 0) == 0 || errno != ESRCH; /* EPERM: another user's, alive */
}

static void forget_tid_in_child(void)
{
	rts_tid_cache = 0;
}

__attribute__((constructor)) static void register_fork_handler(void)
{
	pthread_atfork(NULL, NULL, forget_tid_in_child);
}
