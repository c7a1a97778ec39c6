/* SPDX-License-Identifier: MIT */
/* The CPUs of this machine, as the measurement tools number them. */
#ifndef RTS_TOOLS_CPUS_H
#define RTS_TOOLS_CPUS_H

/* Number of configured CPUs (the kernel's "possible" count). */
int rts_ncpus(void);
/* Is the CPU online? (cpu0 is always online) */
int rts_cpu_online(int cpu);

#endif
