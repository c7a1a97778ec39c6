/* SPDX-License-Identifier: MIT */
#include "cpus.h"

#include <stdio.h>
#include <unistd.h>

int rts_ncpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	return n > 0 ? (int)n : 1;
}

int rts_cpu_online(int cpu)
{
	if (cpu < 0 || cpu >= rts_ncpus())
		return 0;
	char path[96];
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	FILE *f = fopen(path, "r");
	if (!f)
		return 1; /* no "online" file: the CPU cannot go offline */
	int c = fgetc(f);
	fclose(f);
	return c == '1';
}
