/* SPDX-License-Identifier: MIT */
/*
 * rt-app's taskgroups: folders of the cgroup v1 cpu controller, which share
 * CPU time among groups of SCHED_OTHER threads. The runner makes each
 * taskgroup the input names (a task's, or a taskgroup op's: "/tg1/tg11",
 * under the controller's mount) with its missing parents, gives the tasks
 * and ops the folders' whole paths, and removes after the run the folders it
 * made, deepest first (those that were there stay). A thread joins its
 * task's folder when it starts and a taskgroup op's where the op stands.
 */
#ifndef RTSCHED_RUN_TASKGROUPS_H
#define RTSCHED_RUN_TASKGROUPS_H

#include <stddef.h>

#include "spec.h"

struct run_taskgroups {
	char (*made)[RUN_PATH_MAX]; /* folders this run made, parents first */
	size_t n_made;
};

/* Make the input's taskgroups; 0, or an errno with `error` naming the task. */
int run_taskgroups_create(struct run_spec *spec, struct run_taskgroups *groups, char *error,
			  size_t error_len);

/* Remove the folders run_taskgroups_create made (after the task threads ended). */
void run_taskgroups_remove(struct run_taskgroups *groups);

#endif
