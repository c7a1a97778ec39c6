/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>

#include "internal/wake_signal.h"

__thread sigjmp_buf *volatile rts_wake_jump __attribute__((tls_model("initial-exec")));

static void on_wake_signal(int signo)
{
	(void)signo;
	sigjmp_buf *jump = rts_wake_jump;
	if (jump) {
		rts_wake_jump = NULL;
		siglongjmp(*jump, 1);
	}
	/* Otherwise only interrupting (EINTR) was wanted. */
}

static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static int install_error;

static void install(void)
{
	/* No SA_RESTART; SA_NODEFER and an empty sa_mask leave the interrupted
	 * code's mask in force, so a siglongjmp out of the handler needs none
	 * restored (sigsetjmp(jump, 0): no system call per wait). */
	struct sigaction action = { .sa_handler = on_wake_signal, .sa_flags = SA_NODEFER };
	sigemptyset(&action.sa_mask);
	install_error = sigaction(RTS_WAKE_SIGNAL, &action, NULL) == 0 ? 0 : errno;
}

int rts_wake_signal_install(void)
{
	pthread_once(&install_once, install);
	return install_error;
}
