/* SPDX-License-Identifier: MIT */
/* A program written for librtpi, unchanged: <rtpi.h>, -lrtpi. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include <rtpi.h>

static DEFINE_PI_MUTEX(lock, 0);
static DEFINE_PI_COND(cond, 0);
static int ready;

static void *waiter(void *arg)
{
	(void)arg;
	pi_mutex_lock(&lock);
	while (!ready)
		pi_cond_wait(&cond, &lock);
	pi_mutex_unlock(&lock);
	return NULL;
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, waiter, NULL))
		return 1;
	pi_mutex_lock(&lock);
	ready = 1;
	pi_cond_broadcast(&cond, &lock);
	pi_mutex_unlock(&lock);
	pthread_join(t, NULL);

	pi_cond_t *c = pi_cond_alloc();
	if (!c || pi_cond_init(c, 0x4) != EINVAL || pi_cond_init(c, 0) != 0)
		return 2;
	struct timespec dl;
	clock_gettime(CLOCK_MONOTONIC, &dl);
	pi_mutex_lock(&lock);
	if (pi_cond_timedwait(c, &lock, &dl) != ETIMEDOUT)
		return 3;
	pi_mutex_unlock(&lock);
	pi_cond_free(c);
	printf("librtpi consumer ok\n");
	return 0;
}
