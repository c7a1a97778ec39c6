#include "track_event_packets.h"

#include <stddef.h>

/* Field tags (field number << 3 | wire type: 0 varint, 2 length-delimited), all one byte. */
enum {
	TAG_TRACE_PACKET = 1 << 3 | 2,
	TAG_TIMESTAMP = 8 << 3,
	TAG_SEQUENCE_ID = 10 << 3,
	TAG_SEQUENCE_FLAGS = 13 << 3,
	TAG_TRACK_EVENT = 11 << 3 | 2,
	TAG_TYPE = 9 << 3,
	TAG_TRACK_UUID = 11 << 3,
	TAG_NAME_IID = 10 << 3,
	TAG_DEBUG_ANNOTATION = 4 << 3 | 2,
	TAG_ANNOTATION_NAME_IID = 1 << 3,
	TAG_INT_VALUE = 4 << 3,
};

enum { SEQUENCE_ID = 1, NEEDS_INCREMENTAL_STATE = 2, SLICE_END = 2 };

static int64_t varint_bytes(uint64_t v)
{
	int64_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static uint8_t *put_varint(uint8_t *at, uint64_t v)
{
	while (v >= 0x80) {
		*at++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*at++ = (uint8_t)v;
	return at;
}

/* A field of one tag byte and a varint value. */
static uint8_t *put_field(uint8_t *at, uint8_t tag, uint64_t v)
{
	*at++ = tag;
	return put_varint(at, v);
}

int64_t rtsr_track_event_packets(int64_t n, const int64_t *ts, const int8_t *kind, const int32_t *track,
				 const int32_t *name, const uint8_t *arg_name, const int64_t *arg, uint8_t *out)
{
	if (n < 0)
		return -1;
	uint8_t *at = out;
	for (int64_t i = 0; i < n; i++) {
		/* Values are encoded as the Python encoder's astype(np.uint64) makes them. */
		const uint64_t type = (uint64_t)(int64_t)kind[i], uuid = (uint64_t)(int64_t)track[i];
		const int named = kind[i] != SLICE_END;
		int64_t annotation = 0, event = 1 + varint_bytes(type) + 1 + varint_bytes(uuid);
		if (named) {
			annotation = 1 + varint_bytes(arg_name[i]) + 1 + varint_bytes((uint64_t)arg[i]);
			event += 1 + varint_bytes((uint64_t)(int64_t)name[i]) + 1 + varint_bytes((uint64_t)annotation) +
				 annotation;
		}
		const int64_t packet = 1 + varint_bytes((uint64_t)ts[i]) + 2 + 2 + 1 + varint_bytes((uint64_t)event) + event;
		at = put_field(at, TAG_TRACE_PACKET, (uint64_t)packet);
		at = put_field(at, TAG_TIMESTAMP, (uint64_t)ts[i]);
		at = put_field(at, TAG_SEQUENCE_ID, SEQUENCE_ID);
		at = put_field(at, TAG_SEQUENCE_FLAGS, NEEDS_INCREMENTAL_STATE);
		at = put_field(at, TAG_TRACK_EVENT, (uint64_t)event);
		at = put_field(at, TAG_TYPE, type);
		at = put_field(at, TAG_TRACK_UUID, uuid);
		if (named) {
			at = put_field(at, TAG_NAME_IID, (uint64_t)(int64_t)name[i]);
			at = put_field(at, TAG_DEBUG_ANNOTATION, (uint64_t)annotation);
			at = put_field(at, TAG_ANNOTATION_NAME_IID, arg_name[i]);
			at = put_field(at, TAG_INT_VALUE, (uint64_t)arg[i]);
		}
	}
	return (int64_t)(at - out);
}
