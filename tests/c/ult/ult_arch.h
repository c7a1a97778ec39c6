/* SPDX-License-Identifier: MIT */
/*
 * The one place the ult tests meet an architecture's limit: on AArch64 the
 * backend refuses clusters of more than one CPU (ENOTSUP; docs/ult.md,
 * "AArch64"), so a form that lets ULTs migrate ("ult", "ult:gedf", ...) is
 * refused there, with the reason, and the tests of migration are skipped.
 */
#ifndef ULT_ARCH_H
#define ULT_ARCH_H

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <rtsched/task.h>

#include "harness.h"

#if defined(__aarch64__)
#define ULT_MIGRATION_ALLOWED 0
#else
#define ULT_MIGRATION_ALLOWED 1
#endif

/*
 * Set the backend `form`. true: it is set. false: this architecture refuses
 * it as documented (ENOTSUP naming the reason). Any other outcome fails.
 */
static inline bool ult_set_backend_here(rts_taskset_t *set, const char *form)
{
	int err = rts_taskset_set_backend(set, form);
	if (!ULT_MIGRATION_ALLOWED && err == ENOTSUP) {
		CHECK_MSG(strstr(rts_taskset_error(set), "clusters of one CPU only"), "%s: %s",
			  form, rts_taskset_error(set));
		return false;
	}
	CHECK_MSG(err == 0, "%s: %s", form, rts_taskset_error(set));
	return true;
}

/* Set the backend `form`, or skip the case where this architecture refuses it. */
static inline void ult_set_backend_or_skip(rts_taskset_t *set, const char *form)
{
	if (!ult_set_backend_here(set, form))
		SKIP("%s: %s", form, rts_taskset_error(set));
}

#endif
