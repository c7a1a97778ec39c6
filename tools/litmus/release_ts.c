/* SPDX-License-Identifier: MIT */
/*
 * release_ts: release the tasks waiting in wait_for_ts_release (LITMUS^RT's tool).
 *
 *   release_ts [-d DELAY_MS] [-f NR_TASKS] [-t TIMEOUT_S]
 *
 * -f: first wait until NR_TASKS tasks wait (at most TIMEOUT_S, default 10).
 * The tasks' first jobs are released DELAY_MS (default 1000) from now.
 * Prints "Released N real-time tasks." Exit 1: bad option; 2: failure; 3: timeout.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <litmus.h>

static double number(const char *s, const char *what)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || v < 0) {
		fprintf(stderr, "release_ts: %s: \"%s\" is not a non-negative number\n", what, s);
		exit(1);
	}
	return v;
}

int main(int argc, char **argv)
{
	double delay_ms = 1000, timeout_s = 10;
	int wanted = 0, opt;
	while ((opt = getopt(argc, argv, "d:f:t:")) != -1) {
		switch (opt) {
		case 'd': delay_ms = number(optarg, "-d DELAY_MS"); break;
		case 'f': wanted = (int)number(optarg, "-f NR_TASKS"); break;
		case 't': timeout_s = number(optarg, "-t TIMEOUT_S"); break;
		default:
			fprintf(stderr, "usage: release_ts [-d DELAY_MS] [-f NR_TASKS] [-t TIMEOUT_S]\n");
			return 1;
		}
	}
	lt_t give_up = litmus_clock() + (lt_t)(timeout_s * 1e9);
	int waiting;
	while ((waiting = get_nr_ts_release_waiters()) >= 0 && waiting < wanted) {
		if (litmus_clock() > give_up) {
			fprintf(stderr, "release_ts: %d of %d tasks waiting after %g s\n", waiting,
				wanted, timeout_s);
			return 3;
		}
		lt_sleep(ms2ns(1));
	}
	lt_t when = litmus_clock() + (lt_t)(delay_ms * 1e6);
	int released = waiting < 0 ? -1 : release_ts(&when);
	if (released < 0) {
		fprintf(stderr, "release_ts: %s (%s)\n", litmus_last_error(), strerror(errno));
		return 2;
	}
	printf("Released %d real-time tasks.\n", released);
	return 0;
}
