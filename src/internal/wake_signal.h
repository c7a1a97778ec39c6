/* SPDX-License-Identifier: MIT */
/*
 * The wake signal: how one thread interrupts another's blocking system call.
 *
 * A task's release sleep (clock_nanosleep) simply returns EINTR. A PI-CV
 * waiter blocked in FUTEX_LOCK_PI on a token would be restarted by the kernel
 * (-ERESTARTNOINTR), so before it blocks it arms rts_wake_jump, and the
 * handler leaves the wait with siglongjmp instead of returning. By then the
 * kernel has removed the waiter from the token's rt_mutex, so the boost it
 * gave has ended (docs/picv-design.md).
 *
 * Invariant: rts_wake_jump is non-NULL only between the arming and the
 * disarming around one blocking call, and it points into the frame that
 * armed it, which is still live.
 */
#ifndef RTS_INTERNAL_WAKE_SIGNAL_H
#define RTS_INTERNAL_WAKE_SIGNAL_H

#include <setjmp.h>
#include <signal.h>

#define RTS_WAKE_SIGNAL (SIGRTMAX - 1)

/* volatile: the handler must see the store made just before the system call. */
extern __thread sigjmp_buf *volatile rts_wake_jump __attribute__((tls_model("initial-exec")));

/* Install the process-wide handler (once); 0 or a positive errno. */
int rts_wake_signal_install(void);

#endif
