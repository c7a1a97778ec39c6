/* SPDX-License-Identifier: MIT */
#include "jsonw.h"

#include <inttypes.h>
#include <math.h>

void jw_init(struct jw *w, FILE *out)
{
	w->out = out;
	w->depth = 0;
	w->first[0] = true;
	w->after_key = false;
}

/* Before any value or key: the comma that separates it from the previous one. */
static void separate(struct jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (!w->first[w->depth])
		fputc(',', w->out);
	w->first[w->depth] = false;
}

static void open_level(struct jw *w, char c)
{
	separate(w);
	fputc(c, w->out);
	if (w->depth + 1 < JW_MAX_DEPTH)
		w->depth++;
	w->first[w->depth] = true;
}

static void close_level(struct jw *w, char c)
{
	fputc(c, w->out);
	if (w->depth > 0)
		w->depth--;
}

void jw_object_begin(struct jw *w) { open_level(w, '{'); }
void jw_object_end(struct jw *w) { close_level(w, '}'); }
void jw_array_begin(struct jw *w) { open_level(w, '['); }
void jw_array_end(struct jw *w) { close_level(w, ']'); }

static void put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void jw_key(struct jw *w, const char *key)
{
	separate(w);
	put_string(w->out, key);
	fputc(':', w->out);
	w->after_key = true;
}

void jw_string(struct jw *w, const char *s)
{
	separate(w);
	put_string(w->out, s);
}

void jw_int(struct jw *w, int64_t v)
{
	separate(w);
	fprintf(w->out, "%" PRId64, v);
}

void jw_uint(struct jw *w, uint64_t v)
{
	separate(w);
	fprintf(w->out, "%" PRIu64, v);
}

void jw_double(struct jw *w, double v)
{
	separate(w);
	if (isfinite(v))
		fprintf(w->out, "%.17g", v);
	else
		fputs("null", w->out);
}

void jw_bool(struct jw *w, bool v)
{
	separate(w);
	fputs(v ? "true" : "false", w->out);
}

void jw_null(struct jw *w)
{
	separate(w);
	fputs("null", w->out);
}
