/* SPDX-License-Identifier: MIT */
/*
 * Which backend the calling thread uses (internal/backend.h). Its own file:
 * everything reads it, and backend.c, which knows every backend, must not
 * be reached back from them (scripts/check-no-cycles).
 */
#include "internal/backend.h"

__thread const struct rts_backend *rts_backend_of_thread __attribute__((tls_model("initial-exec")));
