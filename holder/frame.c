/*
 * frame.c -- the frame codec, no I/O.  The reader is a resumable state
 * machine: bytes may arrive one at a time or many frames at once, and a
 * length over MAX_INBOUND_PAYLOAD_BYTES is refused as soon as the header is
 * complete, before any payload is buffered.  The encoders write
 * holder -> controller frames (and, for tests, controller -> holder ones).
 */
#include <string.h>

#include "holder.h"

static void
put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void
put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void
put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

uint16_t
frame_get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

uint32_t
frame_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

uint64_t
frame_get_u64(const uint8_t *p)
{
	return (uint64_t)frame_get_u32(p) | (uint64_t)frame_get_u32(p + 4) << 32;
}

void
frame_reader_reset(struct frame_reader *r)
{
	r->header_have = 0;
	r->length = 0;
	r->payload_have = 0;
}

bool
frame_reader_mid_frame(const struct frame_reader *r)
{
	return r->header_have > 0;
}

/* Take header bytes; true once the header is whole. */
static bool
reader_take_header(struct frame_reader *r, const uint8_t *data, size_t length,
    size_t *used)
{
	size_t want = FRAME_HEADER_BYTES - r->header_have;
	size_t n = length - *used < want ? length - *used : want;

	memcpy(r->header + r->header_have, data + *used, n);
	r->header_have += n;
	*used += n;
	if (r->header_have < FRAME_HEADER_BYTES)
		return false;
	r->length = frame_get_u32(r->header + 1);
	r->payload_have = 0;
	return true;
}

static void
reader_emit(struct frame_reader *r, const uint8_t *payload, struct frame *out)
{
	out->type = r->header[0];
	out->length = r->length;
	out->payload = payload;
	frame_reader_reset(r);
}

/*
 * Feed bytes; *used says how many were consumed.  Call again with the rest
 * after FRAME_READY.  After FRAME_TOO_LARGE the reader must be discarded
 * (the connection is closed), since the payload is never read.
 */
enum frame_read_result
frame_reader_feed(struct frame_reader *r, const uint8_t *data, size_t length,
    size_t *used, struct frame *out)
{
	size_t want, n;

	*used = 0;
	if (r->header_have < FRAME_HEADER_BYTES) {
		if (!reader_take_header(r, data, length, used))
			return FRAME_NEED_MORE;
		if (r->length > MAX_INBOUND_PAYLOAD_BYTES)
			return FRAME_TOO_LARGE;
	}
	want = r->length - r->payload_have;
	/* A whole payload already in the caller's bytes needs no copy. */
	if (r->payload_have == 0 && length - *used >= want) {
		reader_emit(r, data + *used, out);
		*used += want;
		return FRAME_READY;
	}
	n = length - *used < want ? length - *used : want;
	memcpy(r->payload + r->payload_have, data + *used, n);
	r->payload_have += n;
	*used += n;
	if (r->payload_have < r->length)
		return FRAME_NEED_MORE;
	reader_emit(r, r->payload, out);
	return FRAME_READY;
}

size_t
frame_put_header(uint8_t *out, uint8_t type, uint32_t length)
{
	out[0] = type;
	put_u32(out + 1, length);
	return FRAME_HEADER_BYTES;
}

size_t
frame_encode_empty(uint8_t *out, uint8_t type)
{
	return frame_put_header(out, type, 0);
}

size_t
frame_encode_u32(uint8_t *out, uint8_t type, uint32_t value)
{
	frame_put_header(out, type, 4);
	put_u32(out + FRAME_HEADER_BYTES, value);
	return FRAME_HEADER_BYTES + 4;
}

size_t
frame_encode_u64(uint8_t *out, uint8_t type, uint64_t value)
{
	frame_put_header(out, type, 8);
	put_u64(out + FRAME_HEADER_BYTES, value);
	return FRAME_HEADER_BYTES + 8;
}

size_t
frame_encode_resize(uint8_t *out, uint16_t cols, uint16_t rows)
{
	frame_put_header(out, FRAME_RESIZE, 4);
	put_u16(out + FRAME_HEADER_BYTES, cols);
	put_u16(out + FRAME_HEADER_BYTES + 2, rows);
	return FRAME_HEADER_BYTES + 4;
}

/* Text is cut to fit `room`; 0 if not even the header fits. */
size_t
frame_encode_text(uint8_t *out, size_t room, uint8_t type, const char *text)
{
	size_t n = strlen(text);

	if (room < FRAME_HEADER_BYTES)
		return 0;
	if (n > room - FRAME_HEADER_BYTES)
		n = room - FRAME_HEADER_BYTES;
	frame_put_header(out, type, (uint32_t)n);
	memcpy(out + FRAME_HEADER_BYTES, text, n);
	return FRAME_HEADER_BYTES + n;
}

size_t
frame_encode_error(uint8_t *out, size_t room, uint16_t code, const char *text)
{
	size_t n = strlen(text);

	if (room < FRAME_HEADER_BYTES + 2)
		return 0;
	if (n > room - FRAME_HEADER_BYTES - 2)
		n = room - FRAME_HEADER_BYTES - 2;
	frame_put_header(out, FRAME_ERROR, (uint32_t)(2 + n));
	put_u16(out + FRAME_HEADER_BYTES, code);
	memcpy(out + FRAME_HEADER_BYTES + 2, text, n);
	return FRAME_HEADER_BYTES + 2 + n;
}

size_t
frame_encode_exit(uint8_t *out, int32_t code, int32_t signo)
{
	frame_put_header(out, FRAME_EXIT, 8);
	put_u32(out + FRAME_HEADER_BYTES, (uint32_t)code);
	put_u32(out + FRAME_HEADER_BYTES + 4, (uint32_t)signo);
	return FRAME_HEADER_BYTES + 8;
}

/* `out` must have room for FRAME_HEADER_BYTES + STATE_PAYLOAD_BYTES. */
size_t
frame_encode_state(uint8_t *out, const struct state_fields *s)
{
	uint8_t *p = out + FRAME_HEADER_BYTES;

	frame_put_header(out, FRAME_STATE, STATE_PAYLOAD_BYTES);
	put_u32(p, PROTOCOL_VERSION);
	memcpy(p + 4, s->generation, GENERATION_BYTES);
	put_u64(p + 20, s->ring_start);
	put_u64(p + 28, s->offset);
	put_u32(p + 36, s->child_pid);
	put_u32(p + 40, s->fg_pgid);
	put_u16(p + 44, s->cols);
	put_u16(p + 46, s->rows);
	p[48] = s->flags;
	put_u32(p + 49, (uint32_t)s->exit_code);
	put_u32(p + 53, (uint32_t)s->exit_signal);
	put_u64(p + 57, s->started_at_ms);
	put_u32(p + 65, s->ring_capacity);
	memcpy(p + STATE_V1_PAYLOAD_BYTES, s->build, BUILD_ID_BYTES);
	return FRAME_HEADER_BYTES + STATE_PAYLOAD_BYTES;
}

/*
 * The header (and offset, and REPLAY's flags) of an OUTPUT or REPLAY frame
 * whose `bytes` ring bytes follow; the caller writes those from the ring.
 */
size_t
frame_encode_stream_header(uint8_t *out, uint8_t type, uint64_t offset,
    uint8_t flags, size_t bytes)
{
	size_t prefix = type == FRAME_REPLAY ? 9 : 8;

	frame_put_header(out, type, (uint32_t)(prefix + bytes));
	put_u64(out + FRAME_HEADER_BYTES, offset);
	if (type == FRAME_REPLAY)
		out[FRAME_HEADER_BYTES + 8] = flags;
	return FRAME_HEADER_BYTES + prefix;
}

/* INPUT_FROM, for tests and the fuzz corpus: the holder only reads it. */
size_t
frame_encode_input_from(uint8_t *out, const uint8_t *writer, uint64_t at,
    const uint8_t *bytes, size_t length)
{
	frame_put_header(out, FRAME_INPUT_FROM,
	    (uint32_t)(INPUT_FROM_PREFIX_BYTES + length));
	memcpy(out + FRAME_HEADER_BYTES, writer, WRITER_ID_BYTES);
	put_u64(out + FRAME_HEADER_BYTES + WRITER_ID_BYTES, at);
	if (length > 0)
		memcpy(out + FRAME_HEADER_BYTES + INPUT_FROM_PREFIX_BYTES, bytes,
		    length);
	return FRAME_HEADER_BYTES + INPUT_FROM_PREFIX_BYTES + length;
}

size_t
frame_encode_input_taken(uint8_t *out, const uint8_t *writer, uint64_t total)
{
	frame_put_header(out, FRAME_INPUT_TAKEN, INPUT_TAKEN_PAYLOAD_BYTES);
	memcpy(out + FRAME_HEADER_BYTES, writer, WRITER_ID_BYTES);
	put_u64(out + FRAME_HEADER_BYTES + WRITER_ID_BYTES, total);
	return FRAME_HEADER_BYTES + INPUT_TAKEN_PAYLOAD_BYTES;
}
