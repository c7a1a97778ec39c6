/* SPDX-License-Identifier: MIT */
/* init_litmus / init_rt_thread / exit_litmus. */
#include <sys/mman.h>

#include "litmus_internal.h"

LITMUS_EXPORT int init_litmus(void)
{
	enum litmus_plugin plugin;
	if (litmus_plugin_current(&plugin) != 0)
		return -1;
	/* As liblitmus: lock memory so that page faults stay out of jobs (best effort). */
	mlockall(MCL_CURRENT | MCL_FUTURE);
	litmus_ok();
	return 0;
}

LITMUS_EXPORT int init_rt_thread(void)
{
	return init_litmus();
}

LITMUS_EXPORT void exit_litmus(void)
{
	task_mode(BACKGROUND_TASK);
	litmus_locks_close_all();
	litmus_release_close();
}
