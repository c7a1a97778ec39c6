/* SPDX-License-Identifier: MIT */
/* What mutex.c and job.c call for the ceiling protocols (src/lock/ceiling_mutex.c). */
#ifndef RTS_INTERNAL_CEILING_MUTEX_H
#define RTS_INTERNAL_CEILING_MUTEX_H

#include <stdbool.h>
#include <stdint.h>

#include <rtsched/mutex.h>

/* rts_mutex_init's part for a ceiling protocol: flags from the attribute. */
int rts_ceiling_mutex_init(rts_mutex_t *m, uint32_t flags, int ceiling, int partition,
			   uint32_t domain_id);
/* rts_mutex_lock (nonblock: rts_mutex_trylock) and rts_mutex_unlock. */
int rts_ceiling_mutex_lock(rts_mutex_t *m, bool nonblock);
int rts_ceiling_mutex_unlock(rts_mutex_t *m);
/* Before a job starts (rts_job_next): the gate of SRP, IPCP, MPCP and FMLP+. 0 or EDEADLK. */
int rts_ceiling_job_start(void);

/* The attribute's ceiling-protocol fields (mutex_attr.c); attr may be NULL. */
void rts_mutexattr_ceiling_fields(const rts_mutexattr_t *attr, int *ceiling, int *partition,
				  uint32_t *domain_id);

#endif
