/* SPDX-License-Identifier: MIT */
/*
 * <rtpi.h> exposes librtpi's names only (issue 30 item 4): a librtpi program
 * may use rtsched's names for its own things. Each definition below would
 * clash with a declaration or macro of <rtsched/mutex.h> / <rtsched/cond.h>
 * if <rtpi.h> pulled them in, and the program would not build. Linked with
 * -static against librtpi.a, it also runs a lock, a timed wait and an unlock.
 */
#include <rtpi.h>

#include <stdio.h>

typedef int rts_mutex_t;
typedef int rts_cond_t;
static int RTS_PROTO_PIP = 1;
static int RTS_MUTEX_F_PSHARED = 2;
static int RTS_COND_F_PSHARED = 4;
static int rts_mutex_lock(rts_mutex_t *m)
{
	return *m;
}

static DEFINE_PI_MUTEX(mutex, 0);
static DEFINE_PI_COND(cond, 0);

int main(void)
{
	rts_mutex_t mine = RTS_PROTO_PIP + RTS_MUTEX_F_PSHARED + RTS_COND_F_PSHARED;
	struct timespec past = { 0, 0 };
	if (rts_mutex_lock(&mine) != 7 || pi_mutex_lock(&mutex) != 0 ||
	    pi_cond_timedwait(&cond, &mutex, &past) != ETIMEDOUT || pi_mutex_unlock(&mutex) != 0) {
		fprintf(stderr, "test_rtpi_names: librtpi.a did not lock, time out and unlock\n");
		return 1;
	}
	return 0;
}
