/* SPDX-License-Identifier: MIT */
/*
 * A small reader of the .rtst trace file (docs/trace-format.md) for the
 * ceiling tests: every event of every stream, each tagged with the TID of
 * its stream, merged in time order. The full format checks live in
 * tests/c/trace/test_trace_file.c; this one only reads.
 */
#ifndef RTSCHED_TESTS_CEILING_TRACE_READER_H
#define RTSCHED_TESTS_CEILING_TRACE_READER_H

#include "harness.h"

#include <rtsched/trace.h>

#include "internal/trace_format.h"

#define TR_MAX_EVENTS 65536

struct tr_event {
	struct rts_trace_event_rec rec;
	pid_t tid; /* of the stream that recorded it */
};

struct tr_trace {
	size_t n;
	struct tr_event *ev;
};

static int tr_by_time(const void *a, const void *b)
{
	const struct tr_event *x = a, *y = b;
	return x->rec.time_ns < y->rec.time_ns ? -1 : x->rec.time_ns > y->rec.time_ns;
}

static void tr_read(const char *path, struct tr_trace *t)
{
	FILE *f = fopen(path, "rb");
	CHECK_MSG(f, "cannot open %s: %s", path, strerror(errno));
	struct rts_trace_file_header h;
	CHECK_EQ(fread(&h, sizeof(h), 1, f), 1);
	CHECK(memcmp(h.magic, RTS_TRACE_MAGIC, 8) == 0);
	CHECK_LE(h.n_streams, 16);
	struct rts_trace_stream_record rec[16];
	for (uint32_t i = 0; i < h.n_streams; i++)
		CHECK_EQ(fread(&rec[i], sizeof(rec[i]), 1, f), 1);
	t->n = 0;
	t->ev = calloc(TR_MAX_EVENTS, sizeof(*t->ev));
	CHECK(t->ev);
	struct rts_trace_chunk_header ch;
	while (fread(&ch, sizeof(ch), 1, f) == 1) {
		CHECK_EQ(ch.magic, RTS_TRACE_CHUNK_MAGIC);
		CHECK_LT(ch.stream_id, h.n_streams);
		CHECK_EQ(ch.lost_total, 0);
		CHECK_LE(t->n + ch.n_events, TR_MAX_EVENTS);
		for (uint32_t i = 0; i < ch.n_events; i++, t->n++) {
			CHECK_EQ(fread(&t->ev[t->n].rec, sizeof(t->ev[t->n].rec), 1, f), 1);
			t->ev[t->n].tid = (pid_t)rec[ch.stream_id].tid;
		}
	}
	fclose(f);
	qsort(t->ev, t->n, sizeof(*t->ev), tr_by_time); /* one CPU: time is the order */
}

static void tr_dump(const struct tr_trace *t)
{
	for (size_t i = 0; i < t->n; i++)
		fprintf(stderr, "  %3zu tid %d type %u arg0 %u arg1 %lld\n", i, (int)t->ev[i].tid,
			t->ev[i].rec.type, t->ev[i].rec.arg0, (long long)t->ev[i].rec.arg1);
}

/* Index of the first event at or after `from` of tid with type (and arg0 unless < 0); -1 if none. */
static ssize_t tr_find(const struct tr_trace *t, size_t from, pid_t tid, uint16_t type, long arg0)
{
	for (size_t i = from; i < t->n; i++)
		if (t->ev[i].tid == tid && t->ev[i].rec.type == type &&
		    (arg0 < 0 || t->ev[i].rec.arg0 == (uint32_t)arg0))
			return (ssize_t)i;
	return -1;
}

static size_t tr_count(const struct tr_trace *t, pid_t tid, uint16_t type)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += t->ev[i].tid == tid && t->ev[i].rec.type == type;
	return n;
}

/* A trace session in $TMPDIR with one stream per thread-to-be. */
struct tr_session {
	char path[256];
	struct rts_trace *trace;
};

static void tr_open(struct tr_session *s, const char *tag)
{
	const char *dir = getenv("TMPDIR");
	snprintf(s->path, sizeof(s->path), "%s/rtsched-ceiling-%s-%d.rtst", dir && *dir ? dir : "/tmp",
		 tag, (int)getpid());
	char why[256] = "";
	struct rts_trace_config cfg = { .path = s->path, .name = tag, .error_buf = why,
					.error_buf_size = sizeof(why) };
	int err = rts_trace_open(&s->trace, &cfg);
	CHECK_MSG(err == 0, "rts_trace_open(%s): %s: %s", s->path, h_errname(err), why);
}

static struct rts_trace_stream *tr_stream(struct tr_session *s, const char *name)
{
	struct rts_trace_stream *st;
	CHECK_OK(rts_trace_stream_add(s->trace, -1, name, 0, 0, &st));
	return st;
}

/* Close the session (every recording thread done) and read it back. */
static void tr_close_and_read(struct tr_session *s, struct tr_trace *t)
{
	CHECK_OK(rts_trace_close(s->trace));
	tr_read(s->path, t);
	unlink(s->path);
}

#endif
