/* SPDX-License-Identifier: MIT */
/*
 * <rtsched/trace.h> through the public API: the file it writes is read back
 * here, byte for byte against docs/trace-format.md (the Python reader has its
 * own round-trip test, tests/python/test_trace_roundtrip.py), and every
 * documented error.
 */
#include "harness.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <rtsched/trace.h>

#include "internal/trace_format.h"

/* ---- a minimal reader ---------------------------------------------------- */

#define MAX_STREAMS 8
#define MAX_EVENTS 100000

struct read_stream {
	struct rts_trace_stream_record rec;
	struct rts_trace_event_rec *events;
	uint64_t n_events;
	uint64_t n_chunks;
	uint64_t lost; /* of the last chunk */
};

struct read_trace {
	struct rts_trace_file_header h;
	struct read_stream s[MAX_STREAMS];
};

static void tmp_path(char *buf, size_t size, const char *tag)
{
	const char *dir = getenv("TMPDIR");
	snprintf(buf, size, "%s/rtsched-trace-%s-%d.rtst", dir && *dir ? dir : "/tmp", tag,
		 (int)getpid());
}

static void read_all(const char *path, struct read_trace *rt)
{
	memset(rt, 0, sizeof(*rt));
	FILE *f = fopen(path, "rb");
	CHECK_MSG(f, "cannot open %s: %s", path, strerror(errno));
	CHECK_EQ(fread(&rt->h, sizeof(rt->h), 1, f), 1);
	CHECK(memcmp(rt->h.magic, "RTSTRACE", 8) == 0);
	CHECK_EQ(rt->h.version, 1);
	CHECK_EQ(rt->h.header_size, 128);
	CHECK_EQ(rt->h.stream_record_size, 64);
	CHECK_EQ(rt->h.event_size, 32);
	CHECK_EQ(rt->h.clock, CLOCK_MONOTONIC);
	CHECK_LE(rt->h.n_streams, MAX_STREAMS);
	for (size_t i = 0; i < sizeof(rt->h.reserved); i++)
		CHECK_EQ(rt->h.reserved[i], 0);
	for (uint32_t i = 0; i < rt->h.n_streams; i++) {
		CHECK_EQ(fread(&rt->s[i].rec, sizeof(rt->s[i].rec), 1, f), 1);
		CHECK_EQ(rt->s[i].rec.stream_id, i);
		rt->s[i].events = calloc(MAX_EVENTS, sizeof(struct rts_trace_event_rec));
		CHECK(rt->s[i].events);
	}
	struct rts_trace_chunk_header ch;
	while (fread(&ch, sizeof(ch), 1, f) == 1) {
		CHECK_EQ(ch.magic, 0x4b4e4843u);
		CHECK_LT(ch.stream_id, rt->h.n_streams);
		CHECK_EQ(ch.reserved0, 0);
		CHECK_EQ(ch.reserved1, 0);
		struct read_stream *s = &rt->s[ch.stream_id];
		CHECK_GE(ch.lost_total, s->lost); /* cumulative */
		CHECK_LE(s->n_events + ch.n_events, MAX_EVENTS);
		CHECK_EQ(fread(s->events + s->n_events, sizeof(struct rts_trace_event_rec),
			       ch.n_events, f),
			 ch.n_events);
		s->n_events += ch.n_events;
		s->n_chunks++;
		s->lost = ch.lost_total;
	}
	CHECK(feof(f));
	fclose(f);
}

static void free_read(struct read_trace *rt)
{
	for (int i = 0; i < MAX_STREAMS; i++)
		free(rt->s[i].events);
}

static struct rts_trace *open_or_fail(const char *path, uint32_t buffer_events,
				      int64_t drain_period_ns)
{
	char why[256];
	struct rts_trace_config cfg = {
		.path = path,
		.name = "unit",
		.buffer_events = buffer_events,
		.drain_period_ns = drain_period_ns,
		.error_buf = why,
		.error_buf_size = sizeof(why),
	};
	struct rts_trace *t;
	int err = rts_trace_open(&t, &cfg);
	CHECK_MSG(err == 0, "rts_trace_open: %s: %s", h_errname(err), why);
	return t;
}

/* ---- round trip ---------------------------------------------------------- */

#define PER_THREAD 3000

struct writer {
	struct rts_trace_stream *stream;
	uint32_t tid;
	int use_emit;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	w->tid = (uint32_t)syscall(SYS_gettid);
	rts_trace_stream_bind(w->stream);
	CHECK(rts_trace_current() == w->stream);
	for (uint32_t i = 0; i < PER_THREAD; i++) {
		if (w->use_emit)
			rts_trace_emit(RTS_EV_LOCK_ACQUIRE, i / 10 + 1, i, (int64_t)i * 1000);
		else
			rts_trace_event_at(w->stream, 1000000 + i, RTS_EV_MARKER, i / 10 + 1, i,
					   -(int64_t)i);
		if (i % 500 == 0)
			h_sleep_ms(1); /* let the drain thread take some chunks */
	}
	rts_trace_stream_bind(NULL);
	CHECK(rts_trace_current() == NULL);
	return NULL;
}

static void test_round_trip(void)
{
	char path[256];
	tmp_path(path, sizeof(path), "roundtrip");
	/* 4096-event rings with 1 ms drains: the threads' 3000 events each fit
	 * between drains; stream 0 is filled before the start and loses 4. */
	struct rts_trace *t = open_or_fail(path, 4096, 1000000);
	struct rts_trace_stream *main_s, *ws[2];
	CHECK_OK(rts_trace_stream_add(t, -1, "main", 0, 0, &main_s));
	CHECK_OK(rts_trace_stream_add(t, 0, "tau0", 10000000, 9000000, &ws[0]));
	CHECK_OK(rts_trace_stream_add(t, 1, "a-name-longer-than-thirty-one-characters", 20000000,
				      20000000, &ws[1]));
	rts_trace_stream_bind(main_s);
	for (uint32_t i = 0; i < 4100; i++)
		rts_trace_event_at(main_s, i, RTS_EV_RELEASE, i, 0, (int64_t)i + 5);
	CHECK_EQ(rts_trace_stream_lost_events(main_s), 4);
	CHECK_EQ(rts_trace_lost_events(t), 4);

	CHECK_OK(rts_trace_start(t, 123456789, 987654321));
	CHECK_ERR(EBUSY, rts_trace_start(t, 0, 0));
	struct rts_trace_stream *late;
	CHECK_ERR(EBUSY, rts_trace_stream_add(t, 2, "late", 0, 0, &late));
	CHECK(late == NULL);

	struct writer w[2] = { { .stream = ws[0], .use_emit = 0 }, { .stream = ws[1], .use_emit = 1 } };
	pthread_t th[2];
	for (int i = 0; i < 2; i++)
		CHECK_OK(pthread_create(&th[i], NULL, writer_main, &w[i]));
	for (int i = 0; i < 2; i++)
		h_join(th[i], 20000);
	CHECK_EQ(rts_trace_lost_events(t), 4);
	CHECK(strcmp(rts_trace_error(t), "") == 0);
	CHECK_OK(rts_trace_close(t));
	CHECK(rts_trace_current() == NULL); /* close unbinds the closing thread */

	struct read_trace rt;
	read_all(path, &rt);
	CHECK_EQ(rt.h.n_streams, 3);
	CHECK_EQ(rt.h.t0_ns, 123456789);
	CHECK_EQ(rt.h.duration_ns, 987654321);
	CHECK(strcmp(rt.h.name, "unit") == 0);

	CHECK_EQ(rt.s[0].rec.task_id, -1);
	CHECK_EQ(rt.s[0].rec.tid, (uint32_t)syscall(SYS_gettid));
	CHECK_EQ(rt.s[0].rec.capacity, 4096);
	CHECK(strcmp(rt.s[0].rec.name, "main") == 0);
	CHECK_EQ(rt.s[1].rec.task_id, 0);
	CHECK_EQ(rt.s[1].rec.tid, w[0].tid);
	CHECK_EQ(rt.s[1].rec.period_ns, 10000000);
	CHECK_EQ(rt.s[1].rec.deadline_ns, 9000000);
	CHECK_EQ(rt.s[2].rec.tid, w[1].tid);
	CHECK(strcmp(rt.s[2].rec.name, "a-name-longer-than-thirty-one-c") == 0); /* 31 + NUL */

	/* stream 0: the first 4096 of 4100, then 4 lost, in one final chunk */
	CHECK_EQ(rt.s[0].n_events, 4096);
	CHECK_EQ(rt.s[0].lost, 4);
	for (uint32_t i = 0; i < 4096; i++) {
		const struct rts_trace_event_rec *ev = &rt.s[0].events[i];
		CHECK_EQ(ev->time_ns, i);
		CHECK_EQ(ev->type, RTS_EV_RELEASE);
		CHECK_EQ(ev->job, i);
		CHECK_EQ(ev->arg0, 0);
		CHECK_EQ(ev->reserved, 0);
		CHECK_EQ(ev->arg1, (int64_t)i + 5);
		CHECK_LT(ev->cpu, (uint16_t)CPU_SETSIZE);
	}
	for (int k = 1; k <= 2; k++) {
		const struct read_stream *s = &rt.s[k];
		CHECK_EQ(s->n_events, PER_THREAD);
		CHECK_EQ(s->lost, 0);
		CHECK_GE(s->n_chunks, 2); /* drained during the run, plus the final chunk */
		int64_t last_time = 0;
		for (uint32_t i = 0; i < PER_THREAD; i++) {
			const struct rts_trace_event_rec *ev = &s->events[i];
			CHECK_EQ(ev->job, i / 10 + 1);
			CHECK_EQ(ev->arg0, i);
			CHECK_EQ(ev->reserved, 0);
			CHECK_LT(ev->cpu, (uint16_t)CPU_SETSIZE);
			if (k == 1) {
				CHECK_EQ(ev->type, RTS_EV_MARKER);
				CHECK_EQ(ev->time_ns, 1000000 + i);
				CHECK_EQ(ev->arg1, -(int64_t)i);
			} else {
				CHECK_EQ(ev->type, RTS_EV_LOCK_ACQUIRE);
				CHECK_EQ(ev->arg1, (int64_t)i * 1000);
				/* timestamped now: monotonic, after the start */
				CHECK_GE(ev->time_ns, last_time);
				last_time = ev->time_ns;
			}
		}
	}
	free_read(&rt);
	unlink(path);
}

/* A session that is never started still writes a valid file. */
static void test_close_without_start(void)
{
	char path[256];
	tmp_path(path, sizeof(path), "nostart");
	struct rts_trace *t = open_or_fail(path, 0, 0);
	struct rts_trace_stream *s;
	CHECK_OK(rts_trace_stream_add(t, 3, "x", 0, 0, &s));
	rts_trace_event(s, RTS_EV_START, 1, 0, 0);
	CHECK_OK(rts_trace_close(t));
	struct read_trace rt;
	read_all(path, &rt);
	CHECK_EQ(rt.h.n_streams, 1);
	CHECK_EQ(rt.s[0].rec.capacity, 65536); /* the default */
	CHECK_EQ(rt.s[0].rec.tid, 0);          /* never bound */
	CHECK_EQ(rt.s[0].n_events, 1);
	CHECK_EQ(rt.s[0].n_chunks, 1);
	CHECK_EQ(rt.s[0].events[0].type, RTS_EV_START);
	free_read(&rt);
	unlink(path);
}

/* A stream with no event still ends with one (empty) chunk. */
static void test_empty_stream_has_final_chunk(void)
{
	char path[256];
	tmp_path(path, sizeof(path), "empty");
	struct rts_trace *t = open_or_fail(path, 16, 0);
	struct rts_trace_stream *s[2];
	CHECK_OK(rts_trace_stream_add(t, 0, "a", 0, 0, &s[0]));
	CHECK_OK(rts_trace_stream_add(t, 1, "b", 0, 0, &s[1]));
	CHECK_OK(rts_trace_start(t, 0, 0));
	CHECK_OK(rts_trace_close(t));
	struct read_trace rt;
	read_all(path, &rt);
	CHECK_EQ(rt.h.n_streams, 2);
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(rt.s[i].n_chunks, 1);
		CHECK_EQ(rt.s[i].n_events, 0);
	}
	free_read(&rt);
	unlink(path);
}

/* Disabled tracing: a NULL stream records nothing and does not crash. */
static void test_null_stream(void)
{
	rts_trace_event(NULL, RTS_EV_START, 1, 2, 3);
	rts_trace_event_at(NULL, 5, RTS_EV_START, 1, 2, 3);
	rts_trace(NULL, RTS_EV_START, 1, 2, 3);
	rts_trace_stream_bind(NULL);
	rts_trace_emit(RTS_EV_START, 1, 2, 3);
	CHECK(rts_trace_current() == NULL);
	CHECK_EQ(rts_trace_lost_events(NULL), 0);
	CHECK_EQ(rts_trace_stream_lost_events(NULL), 0);
	CHECK(strcmp(rts_trace_error(NULL), "") == 0);
	CHECK_ERR(EINVAL, rts_trace_close(NULL));
	CHECK_ERR(EINVAL, rts_trace_start(NULL, 0, 0));
}

/* ---- errors --------------------------------------------------------------- */

static int try_open(const char *path, uint32_t buffer_events, int64_t drain_period_ns,
		    bool markers, char *why, size_t why_size)
{
	struct rts_trace_config cfg = {
		.path = path,
		.buffer_events = buffer_events,
		.drain_period_ns = drain_period_ns,
		.ftrace_markers = markers,
		.error_buf = why,
		.error_buf_size = why_size,
	};
	struct rts_trace *t = (struct rts_trace *)&cfg; /* must be reset to NULL */
	int err = rts_trace_open(&t, &cfg);
	if (err)
		CHECK(t == NULL);
	else
		CHECK_OK(rts_trace_close(t));
	return err;
}

static void test_open_errors(void)
{
	char why[256];
	char path[256];
	tmp_path(path, sizeof(path), "errors");
	CHECK_ERR(EINVAL, rts_trace_open(NULL, NULL));
	CHECK_ERR(EINVAL, try_open(NULL, 0, 0, false, why, sizeof(why)));
	CHECK(strstr(why, "path"));
	CHECK_ERR(EINVAL, try_open(path, 3, 0, false, why, sizeof(why)));
	CHECK(strstr(why, "power of two"));
	CHECK_ERR(EINVAL, try_open(path, RTS_TRACE_MAX_BUFFER_EVENTS * 2u, 0, false, why,
				   sizeof(why)));
	CHECK_ERR(EINVAL, try_open(path, 0, -1, false, why, sizeof(why)));
	CHECK_ERR(ENOENT, try_open("/nonexistent-dir/x.rtst", 0, 0, false, why, sizeof(why)));
	CHECK(strstr(why, "/nonexistent-dir/x.rtst"));
	/* /dev/full: the placeholder header cannot be written */
	CHECK_ERR(ENOSPC, try_open("/dev/full", 0, 0, false, why, sizeof(why)));
	CHECK(strstr(why, "/dev/full"));
	/* a short error buffer is still NUL-terminated */
	char tiny[8];
	CHECK_ERR(EINVAL, try_open(path, 3, 0, false, tiny, sizeof(tiny)));
	CHECK_EQ(strlen(tiny), 7);
	/* no error buffer at all */
	CHECK_ERR(EINVAL, try_open(path, 3, 0, false, NULL, 0));
	CHECK_OK(try_open(path, 0, 0, false, why, sizeof(why)));
	CHECK(strcmp(why, "") == 0);
	struct rts_trace *t = open_or_fail(path, 0, 0);
	struct rts_trace_stream *s;
	CHECK_ERR(EINVAL, rts_trace_stream_add(t, 0, "x", -1, 0, &s));
	CHECK_ERR(EINVAL, rts_trace_stream_add(t, 0, "x", 0, 0, NULL));
	CHECK_OK(rts_trace_close(t));
	unlink(path);
}

static bool tracefs_mounted(void)
{
	return access("/sys/kernel/tracing/trace_marker", F_OK) == 0 ||
	       access("/sys/kernel/debug/tracing/trace_marker", F_OK) == 0;
}

/* Without tracefs, markers are refused with ENOENT and the way to mount it;
 * with it, events go to trace_marker as well as to the file. */
static void test_ftrace_markers(void)
{
	char why[512];
	char path[256];
	tmp_path(path, sizeof(path), "markers");
	if (!tracefs_mounted()) {
		CHECK_ERR(ENOENT, try_open(path, 0, 0, true, why, sizeof(why)));
		CHECK_MSG(strstr(why, "tracefs is not mounted") && strstr(why, "mount -t tracefs"),
			  "reason: %s", why);
		unlink(path);
		return;
	}
	struct rts_trace_config cfg = {
		.path = path, .ftrace_markers = true, .error_buf = why, .error_buf_size = sizeof(why),
	};
	struct rts_trace *t;
	int err = rts_trace_open(&t, &cfg);
	if (err == EACCES || err == EPERM)
		SKIP("trace_marker not writable: %s", why);
	CHECK_MSG(err == 0, "%s: %s", h_errname(err), why);
	struct rts_trace_stream *s;
	CHECK_OK(rts_trace_stream_add(t, 0, "m", 0, 0, &s));
	rts_trace_stream_bind(s);
	rts_trace_event(s, RTS_EV_MARKER, 1, 42, -7);
	rts_trace_event(s, 200, 1, 42, -7); /* a user type: printed as a number */
	CHECK_OK(rts_trace_close(t));
	struct read_trace rt;
	read_all(path, &rt);
	CHECK_EQ(rt.s[0].n_events, 2);
	free_read(&rt);
	unlink(path);
}

/* A file that cannot grow (RLIMIT_FSIZE, like a full disk): the traced
 * thread carries on, rts_trace_error() says what happened while the session
 * is open, and rts_trace_close returns the error with its reason. */
static void test_file_error_reported_at_close(void)
{
	char path[256];
	tmp_path(path, sizeof(path), "efbig");
	signal(SIGXFSZ, SIG_IGN);
	struct rlimit rl = { .rlim_cur = 4096, .rlim_max = RLIM_INFINITY };
	CHECK_SYS(setrlimit(RLIMIT_FSIZE, &rl));
	char why[256];
	struct rts_trace_config cfg = {
		.path = path, .buffer_events = 1024, .drain_period_ns = 1000000,
		.error_buf = why, .error_buf_size = sizeof(why),
	};
	struct rts_trace *t;
	CHECK_OK(rts_trace_open(&t, &cfg));
	struct rts_trace_stream *s;
	CHECK_OK(rts_trace_stream_add(t, 0, "big", 0, 0, &s));
	rts_trace_stream_bind(s);
	CHECK_OK(rts_trace_start(t, 0, 0));
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 500; i++)
			rts_trace_event(s, RTS_EV_MARKER, 0, (uint32_t)i, 0);
		h_sleep_ms(3);
	}
	WAIT_FOR(strcmp(rts_trace_error(t), "") != 0, 5000);
	CHECK_MSG(strstr(rts_trace_error(t), "File too large"), "error: %s", rts_trace_error(t));
	/* the drain thread keeps emptying the rings after the error */
	for (int i = 0; i < 500; i++)
		rts_trace_event(s, RTS_EV_MARKER, 0, (uint32_t)i, 0);
	h_sleep_ms(20);
	CHECK_EQ(rts_trace_lost_events(t), 0);
	CHECK_ERR(EFBIG, rts_trace_close(t));
	CHECK_MSG(strstr(why, "File too large"), "reason: %s", why);
	struct stat st;
	CHECK_SYS(stat(path, &st));
	CHECK_LE(st.st_size, 4096);
	unlink(path);
}

static const struct h_case cases[] = {
	H_CASE(test_round_trip, 30000),
	H_CASE(test_close_without_start, 5000),
	H_CASE(test_empty_stream_has_final_chunk, 5000),
	H_CASE(test_null_stream, 5000),
	H_CASE(test_open_errors, 5000),
	H_CASE(test_ftrace_markers, 5000),
	H_CASE(test_file_error_reported_at_close, 20000),
};

int main(int argc, char **argv)
{
	return h_main(argc, argv, cases, H_NCASES(cases));
}
