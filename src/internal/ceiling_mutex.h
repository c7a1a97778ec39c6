/* SPDX-License-Identifier: MIT */
/* What job.c calls of the ceiling protocols (src/lock/ceiling_mutex.c), and what they read of an attribute. */
#ifndef RTS_INTERNAL_CEILING_MUTEX_H
#define RTS_INTERNAL_CEILING_MUTEX_H

#include <stdbool.h>
#include <stdint.h>

#include <rtsched/mutex.h>

/* Before a job starts (rts_job_next): the gate of SRP, IPCP, MPCP and FMLP+. 0 or EDEADLK. */
int rts_ceiling_job_start(void);

/* The attribute's ceiling-protocol fields, as the protocols' init reads them
 * (inline: the lock layer does not call the attribute API of src/sync/); attr
 * may be NULL. */
static inline void rts_mutexattr_ceiling_fields(const rts_mutexattr_t *attr, int *ceiling,
						int *partition, uint32_t *domain_id)
{
	*ceiling = attr ? attr->ceiling : 0;
	*partition = attr ? attr->partition : -1;
	*domain_id = attr ? attr->domain_id : 0;
}

#endif
