/* SPDX-License-Identifier: MIT */
/*
 * Trace sessions: streams (per-thread SPSC rings, internal/trace_ring.h), the
 * drain thread that empties them into the file, and the file itself
 * (docs/trace-format.md, internal/trace_format.h).
 *
 * The file is written in three steps:
 *   open   a placeholder header (n_streams 0), so that a bad path fails early;
 *   start  the header and the stream table (TIDs of threads not yet bound are
 *          0); the file offset is then at the first chunk;
 *   drain  chunks, appended with writev(2) straight from the rings (a chunk
 *          header and at most two ring segments), by the drain thread every
 *          drain period and by rts_trace_close at the end (one chunk per
 *          stream, possibly empty, with the final lost count);
 *   close  the header and stream table again, with pwrite(2) at offset 0.
 * A run that crashes leaves a readable file: a valid header and table, whole
 * chunks, and at worst a truncated last chunk.
 *
 * File errors do not reach the traced threads: the first one is kept (errno
 * and a message) and returned by rts_trace_close; after it the drain thread
 * keeps emptying the rings, discarding their events, so that producers do not
 * start dropping because of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <rtsched/trace.h>

#include "internal/no_switch.h"
#include "internal/backend.h"
#include "internal/export.h"
#include "internal/tid.h"
#include "internal/timespec.h"
#include "internal/trace.h"

struct rts_trace {
	int fd;
	int marker_fd; /* -1 unless ftrace_markers */
	char *error_buf; /* the caller's, from the config; may be NULL */
	size_t error_buf_size;
	uint32_t buffer_events;
	int64_t drain_period_ns;
	bool started;
	int64_t t0_ns;
	int64_t duration_ns;
	char name[64];

	struct rts_trace_stream **streams; /* fixed once started */
	uint32_t n_streams;

	/* The drain thread and its stop request. */
	pthread_t drain_thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop; /* under lock */

	/*
	 * The first error: written once, by the drain thread or the owner, under
	 * lock; failed is set (release) after the message, so rts_trace_error()
	 * can read the message with an acquire load and no lock.
	 */
	int error;
	_Atomic bool failed;
	char error_msg[256];
};

/* The calling thread's current stream, for rts_trace_emit. */
static __thread struct rts_trace_stream *current_stream
	__attribute__((tls_model("initial-exec")));
/* The job number the library's own events carry (rts_job_next sets it). */
static __thread uint32_t current_job __attribute__((tls_model("initial-exec")));

/* ---- errors ------------------------------------------------------------ */

static void copy_reason(char *buf, size_t size, const char *msg)
{
	if (buf && size) {
		strncpy(buf, msg, size - 1);
		buf[size - 1] = '\0';
	}
}

/* Keep the first error of the session (with its message); returns err. */
__attribute__((format(printf, 3, 4))) static int set_error(struct rts_trace *t, int err,
							   const char *fmt, ...)
{
	pthread_mutex_lock(&t->lock);
	if (!t->error) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(t->error_msg, sizeof(t->error_msg), fmt, ap);
		va_end(ap);
		t->error = err;
		atomic_store_explicit(&t->failed, true, memory_order_release);
	}
	pthread_mutex_unlock(&t->lock);
	return err;
}

static int first_error(struct rts_trace *t)
{
	pthread_mutex_lock(&t->lock);
	int err = t->error;
	pthread_mutex_unlock(&t->lock);
	return err;
}

/* ---- file writing --------------------------------------------------------- */

/* writev until everything is written; 0 or a positive errno. */
static int writev_all(int fd, struct iovec *iov, int cnt)
{
	while (cnt > 0) {
		ssize_t n = writev(fd, iov, cnt);
		if (n < 0) {
			int err = errno;
			if (err == EINTR)
				continue;
			return err;
		}
		if (n == 0)
			return EIO;
		while (cnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

static int pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t n = pwrite(fd, p, len, off);
		if (n < 0) {
			int err = errno;
			if (err == EINTR)
				continue;
			return err;
		}
		if (n == 0)
			return EIO;
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

static void fill_header(const struct rts_trace *t, struct rts_trace_file_header *h,
			uint32_t n_streams)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, RTS_TRACE_MAGIC, 8);
	h->version = RTS_TRACE_VERSION;
	h->header_size = sizeof(struct rts_trace_file_header);
	h->stream_record_size = sizeof(struct rts_trace_stream_record);
	h->event_size = sizeof(struct rts_trace_event_rec);
	h->clock = CLOCK_MONOTONIC;
	h->n_streams = n_streams;
	h->t0_ns = t->t0_ns;
	h->duration_ns = t->duration_ns;
	memcpy(h->name, t->name, sizeof(h->name));
}

/* Header and stream table at offset 0; the file offset is left alone. */
static int write_header_and_table(struct rts_trace *t)
{
	struct rts_trace_file_header h;
	fill_header(t, &h, t->n_streams);
	int err = pwrite_all(t->fd, &h, sizeof(h), 0);
	for (uint32_t i = 0; !err && i < t->n_streams; i++) {
		const struct rts_trace_stream *s = t->streams[i];
		struct rts_trace_stream_record r;
		memset(&r, 0, sizeof(r));
		r.stream_id = s->id;
		r.task_id = s->task_id;
		r.tid = atomic_load_explicit(&((struct rts_trace_stream *)s)->tid,
					     memory_order_relaxed);
		r.capacity = (uint32_t)rts_ring_capacity(&s->ring);
		r.period_ns = s->period_ns;
		r.deadline_ns = s->deadline_ns;
		memcpy(r.name, s->name, sizeof(r.name));
		err = pwrite_all(t->fd, &r, sizeof(r), (off_t)(sizeof(h) + (size_t)i * sizeof(r)));
	}
	return err;
}

static off_t chunks_offset(const struct rts_trace *t)
{
	return (off_t)(sizeof(struct rts_trace_file_header) +
		       (size_t)t->n_streams * sizeof(struct rts_trace_stream_record));
}

/*
 * Consumer side: write what is in one stream's ring as a chunk. An empty ring
 * writes nothing unless final. After a file error, events are discarded.
 */
static void drain_stream(struct rts_trace *t, struct rts_trace_stream *s, bool final)
{
	const struct rts_trace_event_rec *seg0, *seg1;
	uint64_t n0, n1;
	uint64_t n = rts_ring_peek(&s->ring, &seg0, &n0, &seg1, &n1);
	if (n == 0 && !final)
		return;
	if (!atomic_load_explicit(&t->failed, memory_order_acquire)) {
		/* n <= capacity <= RTS_TRACE_MAX_BUFFER_EVENTS fits in a u32. */
		struct rts_trace_chunk_header ch = {
			.magic = RTS_TRACE_CHUNK_MAGIC,
			.stream_id = s->id,
			.n_events = (uint32_t)n,
			.lost_total = rts_ring_lost(&s->ring),
		};
		struct iovec iov[3] = {
			{ .iov_base = &ch, .iov_len = sizeof(ch) },
			{ .iov_base = (void *)seg0, .iov_len = n0 * sizeof(*seg0) },
			{ .iov_base = (void *)seg1, .iov_len = n1 * sizeof(*seg1) },
		};
		int err = writev_all(t->fd, iov, n1 ? 3 : 2);
		if (err)
			set_error(t, err, "writing a chunk of the trace file: %s", strerror(err));
	}
	rts_ring_consume(&s->ring, n);
}

static void drain_all(struct rts_trace *t, bool final)
{
	for (uint32_t i = 0; i < t->n_streams; i++)
		drain_stream(t, t->streams[i], final);
}

/* ---- the drain thread ----------------------------------------------------- */

static void *drain_main(void *arg)
{
	struct rts_trace *t = arg;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		int64_t next_ns = rts_timespec_to_ns(&next) + t->drain_period_ns;
		next = rts_ns_to_timespec(next_ns);
		pthread_mutex_lock(&t->lock);
		while (!t->stop) {
			if (pthread_cond_timedwait(&t->wake, &t->lock, &next) == ETIMEDOUT)
				break;
		}
		bool stop = t->stop;
		pthread_mutex_unlock(&t->lock);
		if (stop)
			break; /* rts_trace_close drains the rest */
		drain_all(t, false);
		/* Late (a long write): restart the period from now rather than
		 * draining back to back to catch up. */
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (rts_timespec_to_ns(&now) > rts_timespec_to_ns(&next))
			next = now;
	}
	return NULL;
}

/* ---- the API -------------------------------------------------------------- */

static bool is_power_of_two(uint32_t v)
{
	return v && !(v & (v - 1));
}

static void copy_name(char *dst, size_t size, const char *src)
{
	memset(dst, 0, size);
	if (src)
		strncpy(dst, src, size - 1); /* always NUL-terminated, NUL-padded */
}

RTS_EXPORT int rts_trace_open(struct rts_trace **trace, const struct rts_trace_config *config)
{
	if (!trace || !config)
		return EINVAL;
	*trace = NULL;
	char *ebuf = config->error_buf;
	size_t esize = config->error_buf_size;
	copy_reason(ebuf, esize, "");
	if (!config->path) {
		copy_reason(ebuf, esize, "rts_trace_open: no path");
		return EINVAL;
	}
	uint32_t buffer_events = config->buffer_events ? config->buffer_events
						       : RTS_TRACE_DEFAULT_BUFFER_EVENTS;
	if (!is_power_of_two(buffer_events) || buffer_events > RTS_TRACE_MAX_BUFFER_EVENTS) {
		char msg[128];
		snprintf(msg, sizeof(msg),
			 "rts_trace_open: buffer_events %u is not a power of two up to %u",
			 buffer_events, RTS_TRACE_MAX_BUFFER_EVENTS);
		copy_reason(ebuf, esize, msg);
		return EINVAL;
	}
	if (config->drain_period_ns < 0) {
		copy_reason(ebuf, esize, "rts_trace_open: negative drain_period_ns");
		return EINVAL;
	}

	struct rts_trace *t = calloc(1, sizeof(*t));
	if (!t) {
		copy_reason(ebuf, esize, "rts_trace_open: out of memory");
		return ENOMEM;
	}
	t->fd = -1;
	t->marker_fd = -1;
	t->error_buf = ebuf;
	t->error_buf_size = esize;
	t->buffer_events = buffer_events;
	t->drain_period_ns = config->drain_period_ns ? config->drain_period_ns
						     : RTS_TRACE_DEFAULT_DRAIN_PERIOD_NS;
	copy_name(t->name, sizeof(t->name), config->name);
	pthread_mutex_init(&t->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->wake, &ca);
	pthread_condattr_destroy(&ca);

	int err = 0;
	char msg[512];
	if (config->ftrace_markers) {
		int fd = rts_tracefs_marker_open(msg, sizeof(msg));
		if (fd < 0) {
			err = -fd;
			goto fail;
		}
		t->marker_fd = fd;
	}
	t->fd = open(config->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (t->fd < 0) {
		err = errno;
		snprintf(msg, sizeof(msg), "cannot create trace file %s: %s", config->path,
			 strerror(err));
		goto fail;
	}
	struct rts_trace_file_header h;
	fill_header(t, &h, 0);
	err = pwrite_all(t->fd, &h, sizeof(h), 0);
	if (err) {
		snprintf(msg, sizeof(msg), "cannot write trace file %s: %s", config->path,
			 strerror(err));
		goto fail;
	}
	*trace = t;
	return 0;

fail:
	copy_reason(ebuf, esize, msg);
	if (t->fd >= 0)
		close(t->fd);
	if (t->marker_fd >= 0)
		close(t->marker_fd);
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	free(t);
	return err;
}

RTS_EXPORT int rts_trace_stream_add(struct rts_trace *t, int32_t task_id, const char *name,
				    int64_t period_ns, int64_t deadline_ns,
				    struct rts_trace_stream **stream)
{
	if (!t || !stream || period_ns < 0 || deadline_ns < 0)
		return EINVAL;
	*stream = NULL;
	if (t->started)
		return EBUSY;
	if (t->n_streams == UINT32_MAX)
		return ENOMEM;

	struct rts_trace_stream **streams =
		realloc(t->streams, (t->n_streams + 1) * sizeof(*streams));
	if (!streams)
		return ENOMEM;
	t->streams = streams;

	struct rts_trace_stream *s;
	if (posix_memalign((void **)&s, RTS_CACHE_LINE, sizeof(*s)))
		return ENOMEM;
	memset(s, 0, sizeof(*s));
	size_t bytes = (size_t)t->buffer_events * sizeof(struct rts_trace_event_rec);
	struct rts_trace_event_rec *slots;
	if (posix_memalign((void **)&slots, RTS_CACHE_LINE, bytes)) {
		free(s);
		return ENOMEM;
	}
	memset(slots, 0, bytes); /* pre-fault: no page fault on the hot path */
	rts_ring_init(&s->ring, slots, t->buffer_events);
	s->trace = t;
	s->marker_fd = t->marker_fd;
	s->id = t->n_streams;
	s->task_id = task_id;
	atomic_init(&s->tid, 0);
	s->period_ns = period_ns;
	s->deadline_ns = deadline_ns;
	copy_name(s->name, sizeof(s->name), name);

	t->streams[t->n_streams++] = s;
	*stream = s;
	return 0;
}

RTS_EXPORT void rts_trace_stream_bind(struct rts_trace_stream *stream)
{
	if (stream)
		atomic_store_explicit(&stream->tid, rts_self_tid(), memory_order_relaxed);
	current_stream = stream;
}

RTS_EXPORT struct rts_trace_stream *rts_trace_current(void)
{
	return current_stream;
}

RTS_EXPORT int rts_trace_start(struct rts_trace *t, int64_t t0_ns, int64_t duration_ns)
{
	if (!t)
		return EINVAL;
	if (t->started)
		return EBUSY;
	t->t0_ns = t0_ns;
	t->duration_ns = duration_ns;
	int err = write_header_and_table(t);
	if (!err && lseek(t->fd, chunks_offset(t), SEEK_SET) < 0)
		err = errno;
	if (err)
		return set_error(t, err, "writing the trace header: %s", strerror(err));
	err = pthread_create(&t->drain_thread, NULL, drain_main, t);
	if (err)
		return set_error(t, err, "starting the trace drain thread: %s", strerror(err));
	t->started = true;
	return 0;
}

/* ---- the hot path ----------------------------------------------------------- */

/* The CPU the thread runs on (internal/backend.h: one load for the threads backend). */
static inline __attribute__((always_inline)) uint16_t current_cpu(void)
{
	int cpu = rts_current_cpu();
	return cpu < 0 ? RTS_TRACE_CPU_UNKNOWN : (uint16_t)cpu;
}

static inline __attribute__((always_inline)) int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return rts_timespec_to_ns(&ts);
}

/* stamp_now: the time is now, read after the slot is reserved so that a
 * dropped event does not pay for the clock; otherwise time_ns. */
static inline __attribute__((always_inline)) void record(struct rts_trace_stream *s,
							 bool stamp_now, int64_t time_ns,
							 uint16_t type, uint32_t job, uint32_t arg0,
							 int64_t arg1)
{
	rts_no_switch_enter(); /* one producer step (internal/no_switch.h) */
	struct rts_trace_event_rec *ev = rts_ring_reserve(&s->ring);
	if (rts_likely(ev)) { /* else full: counted in ring.lost */
		ev->time_ns = stamp_now ? now_ns() : time_ns;
		ev->type = type;
		ev->cpu = current_cpu();
		ev->job = job;
		ev->arg0 = arg0;
		ev->reserved = 0;
		ev->arg1 = arg1;
		if (rts_unlikely(s->marker_fd >= 0))
			rts_trace_marker_write(s, ev);
		rts_ring_publish(&s->ring);
	}
	rts_no_switch_exit();
}

RTS_EXPORT void rts_trace_event(struct rts_trace_stream *stream, uint16_t type, uint32_t job,
				uint32_t arg0, int64_t arg1)
{
	if (rts_unlikely(!stream))
		return;
	record(stream, true, 0, type, job, arg0, arg1);
}

RTS_EXPORT void rts_trace_event_at(struct rts_trace_stream *stream, int64_t time_ns,
				   uint16_t type, uint32_t job, uint32_t arg0, int64_t arg1)
{
	if (rts_unlikely(!stream))
		return;
	record(stream, false, time_ns, type, job, arg0, arg1);
}

RTS_EXPORT void rts_trace_emit(uint16_t type, uint32_t job, uint32_t arg0, int64_t arg1)
{
	struct rts_trace_stream *s = current_stream;
	if (rts_unlikely(!s))
		return;
	record(s, true, 0, type, job, arg0, arg1);
}

void rts_trace_set_current_job(uint32_t job)
{
	current_job = job;
}

void rts_trace_thread_state_save(struct rts_trace_thread_state *state)
{
	state->stream = current_stream;
	state->job = current_job;
}

void rts_trace_thread_state_load(const struct rts_trace_thread_state *state)
{
	current_stream = state->stream;
	current_job = state->job;
}

void rts_trace_emit_lib(uint16_t type, uint32_t arg0, int64_t arg1)
{
	struct rts_trace_stream *s = current_stream;
	if (rts_unlikely(!s))
		return;
	record(s, true, 0, type, current_job, arg0, arg1);
}

/* ---- closing -------------------------------------------------------------- */

RTS_EXPORT int rts_trace_close(struct rts_trace *t)
{
	if (!t)
		return EINVAL;
	if (t->started) {
		pthread_mutex_lock(&t->lock);
		t->stop = true;
		pthread_cond_signal(&t->wake);
		pthread_mutex_unlock(&t->lock);
		pthread_join(t->drain_thread, NULL);
	} else {
		/* Never started: the table and the chunks are written now. */
		int err = write_header_and_table(t);
		if (!err && lseek(t->fd, chunks_offset(t), SEEK_SET) < 0)
			err = errno;
		if (err)
			set_error(t, err, "writing the trace header: %s", strerror(err));
	}
	/* The drain thread has stopped and the caller promises that no thread
	 * records any more: this thread is now the rings' only consumer. */
	drain_all(t, true);
	/* Even after an error (ENOSPC needs no new block to overwrite the start
	 * of the file), so that the table has the TIDs. */
	int herr = write_header_and_table(t);
	if (herr)
		set_error(t, herr, "rewriting the trace header: %s", strerror(herr));
	if (close(t->fd) < 0) {
		int err = errno;
		set_error(t, err, "closing the trace file: %s", strerror(err));
	}
	if (t->marker_fd >= 0)
		close(t->marker_fd);

	int err = first_error(t);
	if (err)
		copy_reason(t->error_buf, t->error_buf_size, t->error_msg);
	for (uint32_t i = 0; i < t->n_streams; i++) {
		struct rts_trace_stream *s = t->streams[i];
		if (current_stream == s)
			current_stream = NULL;
		free(s->ring.slots);
		free(s);
	}
	free(t->streams);
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	free(t);
	return err;
}

RTS_EXPORT uint64_t rts_trace_lost_events(const struct rts_trace *t)
{
	uint64_t lost = 0;
	if (t)
		for (uint32_t i = 0; i < t->n_streams; i++)
			lost += rts_ring_lost(&t->streams[i]->ring);
	return lost;
}

RTS_EXPORT uint64_t rts_trace_stream_lost_events(const struct rts_trace_stream *stream)
{
	return stream ? rts_ring_lost(&stream->ring) : 0;
}

RTS_EXPORT const char *rts_trace_error(const struct rts_trace *t)
{
	if (!t || !atomic_load_explicit(&((struct rts_trace *)t)->failed, memory_order_acquire))
		return "";
	return t->error_msg;
}
