/*
 * trace.pftrace's TrackEvent packets, encoded from columns (one value per event in each array).
 *
 * The bytes are those of python/rtsched/report/export_pftrace.py's `_packets` (its pure-Python
 * form, which tests/python/test_report_pftrace_native.py compares with this one): per event a
 * Trace.packet (field 1) holding TracePacket{timestamp 8, trusted_packet_sequence_id 10 = 1,
 * sequence_flags 13 = SEQ_NEEDS_INCREMENTAL_STATE (2), track_event 11 = TrackEvent{type 9,
 * track_uuid 11, and unless type is SLICE_END (2): name_iid 10, debug_annotations 4 =
 * DebugAnnotation{name_iid 1, int_value 4}}}, every integer a varint of its value as uint64.
 */
#ifndef RTSCHED_TRACK_EVENT_PACKETS_H
#define RTSCHED_TRACK_EVENT_PACKETS_H

#include <stdint.h>

/* The most bytes one event's packet takes (its varints at 10 bytes each: 62). */
#define RTSR_PACKET_MAX_BYTES 64

/*
 * Write the packets of events [0, n) into `out`, which holds n * RTSR_PACKET_MAX_BYTES bytes;
 * returns the bytes written (-1 when n < 0).
 */
int64_t rtsr_track_event_packets(int64_t n, const int64_t *ts, const int8_t *kind, const int32_t *track,
				 const int32_t *name, const uint8_t *arg_name, const int64_t *arg, uint8_t *out);

#endif
