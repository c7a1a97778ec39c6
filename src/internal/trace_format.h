/* SPDX-License-Identifier: MIT */
/*
 * The records of the `.rtst` trace file, byte for byte as docs/trace-format.md
 * describes them (little-endian; x86_64 and every other target rtsched builds
 * for are little-endian, which the static asserts below check).
 */
#ifndef RTS_INTERNAL_TRACE_FORMAT_H
#define RTS_INTERNAL_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the trace file format is little-endian; a big-endian writer needs byte swaps"
#endif

#define RTS_TRACE_MAGIC        "RTSTRACE"
#define RTS_TRACE_VERSION      1u
#define RTS_TRACE_CHUNK_MAGIC  0x4b4e4843u /* "CHNK" read as a little-endian u32 */
#define RTS_TRACE_CPU_UNKNOWN  0xffffu

struct rts_trace_file_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	uint32_t stream_record_size;
	uint32_t event_size;
	uint32_t clock;
	uint32_t n_streams;
	int64_t t0_ns;
	int64_t duration_ns;
	char name[64];
	uint8_t reserved[16];
};

struct rts_trace_stream_record {
	uint32_t stream_id;
	int32_t task_id;
	uint32_t tid;
	uint32_t capacity;
	int64_t period_ns;
	int64_t deadline_ns;
	char name[32];
};

struct rts_trace_chunk_header {
	uint32_t magic;
	uint32_t stream_id;
	uint32_t n_events;
	uint32_t reserved0;
	uint64_t lost_total;
	uint64_t reserved1;
};

/* An event: the same 32 bytes in the ring and in the file. */
struct rts_trace_event_rec {
	int64_t time_ns;
	uint16_t type;
	uint16_t cpu;
	uint32_t job;
	uint32_t arg0;
	uint32_t reserved;
	int64_t arg1;
};

_Static_assert(sizeof(struct rts_trace_file_header) == 128, "header is 128 bytes");
_Static_assert(offsetof(struct rts_trace_file_header, t0_ns) == 32, "t0_ns at 32");
_Static_assert(offsetof(struct rts_trace_file_header, name) == 48, "name at 48");
_Static_assert(offsetof(struct rts_trace_file_header, reserved) == 112, "reserved at 112");
_Static_assert(sizeof(struct rts_trace_stream_record) == 64, "stream record is 64 bytes");
_Static_assert(offsetof(struct rts_trace_stream_record, period_ns) == 16, "period_ns at 16");
_Static_assert(offsetof(struct rts_trace_stream_record, name) == 32, "name at 32");
_Static_assert(sizeof(struct rts_trace_chunk_header) == 32, "chunk header is 32 bytes");
_Static_assert(offsetof(struct rts_trace_chunk_header, lost_total) == 16, "lost_total at 16");
_Static_assert(sizeof(struct rts_trace_event_rec) == 32, "event is 32 bytes");
_Static_assert(offsetof(struct rts_trace_event_rec, type) == 8, "type at 8");
_Static_assert(offsetof(struct rts_trace_event_rec, job) == 12, "job at 12");
_Static_assert(offsetof(struct rts_trace_event_rec, arg0) == 16, "arg0 at 16");
_Static_assert(offsetof(struct rts_trace_event_rec, arg1) == 24, "arg1 at 24");

#endif
