/* SPDX-License-Identifier: MIT */
/* A small streaming JSON writer: commas and nesting handled for the caller. */
#ifndef RTS_TOOLS_JSONW_H
#define RTS_TOOLS_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JW_MAX_DEPTH 16

struct jw {
	FILE *out;
	int depth;
	bool first[JW_MAX_DEPTH]; /* no member written yet at this depth */
	bool after_key;           /* a key was just written: no comma before its value */
};

void jw_init(struct jw *w, FILE *out);
void jw_object_begin(struct jw *w);
void jw_object_end(struct jw *w);
void jw_array_begin(struct jw *w);
void jw_array_end(struct jw *w);
void jw_key(struct jw *w, const char *key);
void jw_string(struct jw *w, const char *s);
void jw_int(struct jw *w, int64_t v);
void jw_uint(struct jw *w, uint64_t v);
void jw_double(struct jw *w, double v);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);

#endif
