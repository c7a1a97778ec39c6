/* SPDX-License-Identifier: MIT */
/* rtsched: real-time scheduling and locking on a stock Linux kernel. */
#ifndef RTSCHED_RTSCHED_H
#define RTSCHED_RTSCHED_H

#include <rtsched/version.h>
#include <rtsched/mutex.h>
#include <rtsched/lockdomain.h>
#include <rtsched/cond.h>
#include <rtsched/rpc.h>
#include <rtsched/msgq.h>
#include <rtsched/trace.h>
#include <rtsched/sched.h>
#include <rtsched/task.h>
#include <rtsched/reservation.h>
#include <rtsched/blocking.h>

#endif /* RTSCHED_RTSCHED_H */
