/* SPDX-License-Identifier: MIT */
/* Which backend a thread uses, and the backends by name (internal/backend.h). */
#include <string.h>

#include "internal/backend.h"

__thread const struct rts_backend *rts_backend_of_thread __attribute__((tls_model("initial-exec")));

static const struct rts_backend *const backends[] = {
	&rts_backend_threads,
};

const struct rts_backend *rts_backend_by_name(const char *name)
{
	for (size_t i = 0; name && i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}
