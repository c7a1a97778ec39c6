/* SPDX-License-Identifier: MIT */
/*
 * The backends by name (internal/backend.h), for rts_taskset_set_backend.
 * In the task layer: it knows every backend, so it lies above all of them
 * (src/layers.txt).
 */
#include <string.h>

#include "internal/backend.h"

static const struct rts_backend *const backends[] = {
	&rts_backend_threads,
	&rts_backend_ult,
};

const struct rts_backend *rts_backend_by_name(const char *name)
{
	for (size_t i = 0; name && i < sizeof(backends) / sizeof(backends[0]); i++) {
		size_t len = strlen(backends[i]->name);
		if (strncmp(backends[i]->name, name, len) == 0 && (name[len] == 0 || name[len] == ':'))
			return backends[i];
	}
	return NULL;
}
