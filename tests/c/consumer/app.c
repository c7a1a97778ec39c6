/* SPDX-License-Identifier: MIT */
/* The smallest rtsched program: a PIP mutex and a condvar, one waiter. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include <rtsched/rtsched.h>

static rts_mutex_t m = RTS_MUTEX_PIP_INITIALIZER;
static rts_cond_t c = RTS_COND_INITIALIZER;
static int ready;

static void *waiter(void *arg)
{
	(void)arg;
	rts_mutex_lock(&m);
	while (!ready)
		rts_cond_wait(&c, &m);
	rts_mutex_unlock(&m);
	return NULL;
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, waiter, NULL))
		return 1;
	rts_mutex_lock(&m);
	ready = 1;
	rts_cond_signal(&c);
	rts_mutex_unlock(&m);
	pthread_join(t, NULL);
	if (rts_mutex_trylock(&m) != 0 || rts_mutex_trylock(&m) != EBUSY || rts_mutex_unlock(&m))
		return 2;
	printf("rtsched consumer ok\n");
	return 0;
}
