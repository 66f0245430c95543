/*
 * oracle_frames.c -- the C frame codec on stdin/stdout, for the TypeScript
 * test that holds it against src/protocol/viewer-frames.ts
 * (test/viewer-native/frames.test.ts).  One request a line, one JSON line
 * back for each, in order:
 *
 *   decode HEX
 *       the server frame decoded, with viewer-frames.ts's field names
 *       (FrameFromServer): strings as JSON strings, DATA's bytes as hex,
 *       STATE's object as it came; SCROLLBACK as type and channel alone.
 *   encode hello READ_ONLY ASKS_BUILD KIND WRITER
 *   encode subscribe CHANNEL COLS ROWS KEEPS_HISTORY REPAINT SESSION [BOOT SEQ]
 *   encode unsubscribe CHANNEL
 *   encode input CHANNEL DATA
 *   encode input-at CHANNEL AT DATA
 *   encode resize-request CHANNEL COLS ROWS
 *   encode ack CHANNEL SEQ
 *       {"hex":"..."}: the frame.  Flags are 0 or 1; WRITER, SESSION, BOOT
 *       and DATA are hex, "-" for none (no writer, an empty string or no
 *       bytes); a subscribe with BOOT and SEQ carries that resume point.
 *
 * Anything refused answers {"error":"..."}.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer.h"
#include "oracle_io.h"

#define MAX_ARGS 12
#define OUT_CAP_BYTES (64u * 1024u * 1024u)

static const char *const MOUSE_TRACKINGS[] = { "none", "x10", "vt200", "drag", "any" };
static const char *const MOUSE_ENCODINGS[] = { "unknown", "default", "utf8", "sgr", "urxvt", "sgr-pixels" };

static void
print_json_string(const char *s, size_t n)
{
	putchar('"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* Bytes as a JSON string of hex, "" for none. */
static void
print_hex(const uint8_t *p, size_t n)
{
	putchar('"');
	if (n > 0)
		oracle_print_hex(p, n);
	putchar('"');
}

static void
print_error(const char *message)
{
	printf("{\"error\":");
	print_json_string(message, strlen(message));
	printf("}\n");
}

static int
number(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno != 0 || *end != '\0' || *v > max ? -1 : 0;
}

static void
print_modes(const struct screen_modes *m)
{
	printf("{\"cursorX\":%u,\"cursorY\":%u,\"cursorHidden\":%s,\"altScreen\":%s,"
	    "\"applicationCursorKeys\":%s,\"applicationKeypad\":%s,\"bracketedPaste\":%s,"
	    "\"sendFocus\":%s,\"originMode\":%s,\"insertMode\":%s,\"wraparound\":%s,"
	    "\"mouseTracking\":\"%s\",\"mouseEncoding\":\"%s\"}",
	    m->cursor_x, m->cursor_y,
	    m->cursor_hidden ? "true" : "false", m->alt_screen ? "true" : "false",
	    m->app_cursor_keys ? "true" : "false", m->app_keypad ? "true" : "false",
	    m->bracketed_paste ? "true" : "false", m->send_focus ? "true" : "false",
	    m->origin_mode ? "true" : "false", m->insert_mode ? "true" : "false",
	    m->wraparound ? "true" : "false",
	    MOUSE_TRACKINGS[m->mouse_tracking], MOUSE_ENCODINGS[m->mouse_encoding]);
}

static void
print_frame(const struct server_frame *f)
{
	switch (f->type) {
	case FT_WELCOME:
		printf("{\"type\":\"welcome\",\"protocolVersion\":%u,\"serverBoot\":", f->u.welcome.protocol_version);
		print_json_string(f->u.welcome.server_boot, f->u.welcome.server_boot_len);
		printf(",\"serverVersion\":");
		print_json_string(f->u.welcome.server_version, f->u.welcome.server_version_len);
		if (f->u.welcome.server_build != NULL) {
			printf(",\"serverBuild\":");
			print_json_string(f->u.welcome.server_build, f->u.welcome.server_build_len);
		}
		break;
	case FT_SNAPSHOT:
		printf("{\"type\":\"snapshot\",\"channel\":%u,\"boot\":", f->channel);
		print_json_string(f->u.snapshot.boot, f->u.snapshot.boot_len);
		printf(",\"seq\":%llu,\"cols\":%u,\"rows\":%u,\"modes\":", (unsigned long long)f->u.snapshot.seq,
		    f->u.snapshot.cols, f->u.snapshot.rows);
		print_modes(&f->u.snapshot.modes);
		printf(",\"data\":");
		print_json_string((const char *)f->u.snapshot.data, f->u.snapshot.data_len);
		if (f->u.snapshot.view)
			printf(",\"view\":true");
		break;
	case FT_DATA:
		printf("{\"type\":\"data\",\"channel\":%u,\"seq\":%llu,\"data\":", f->channel,
		    (unsigned long long)f->u.data.seq);
		print_hex(f->u.data.data, f->u.data.data_len);
		break;
	case FT_RESIZE:
		printf("{\"type\":\"resize\",\"channel\":%u,\"cols\":%u,\"rows\":%u", f->channel,
		    f->u.resize.cols, f->u.resize.rows);
		break;
	case FT_TITLE:
		printf("{\"type\":\"title\",\"channel\":%u,\"title\":", f->channel);
		print_json_string(f->u.title.title, f->u.title.title_len);
		break;
	case FT_EXIT:
		printf("{\"type\":\"exit\",\"channel\":%u,\"code\":%d,\"signal\":%d", f->channel,
		    (int)f->u.exit.code, (int)f->u.exit.signal);
		break;
	case FT_STATE:
		/*
		 * Checked to be a JSON object by the decoder: it goes out as it
		 * came, but for line ends, which can only be whitespace between
		 * tokens there (a string holds none raw) and would end the line.
		 */
		printf("{\"type\":\"state\",\"channel\":%u,\"state\":", f->channel);
		for (size_t i = 0; i < f->u.state.json_len; i++)
			putchar(f->u.state.json[i] == '\n' || f->u.state.json[i] == '\r' ? ' ' : f->u.state.json[i]);
		break;
	case FT_ERROR:
		printf("{\"type\":\"error\",\"channel\":%u,\"code\":%u,\"message\":", f->channel, f->u.error.code);
		print_json_string(f->u.error.message, f->u.error.message_len);
		break;
	case FT_CLOSED:
		printf("{\"type\":\"closed\",\"channel\":%u,\"reason\":%u,\"message\":", f->channel, f->u.closed.reason);
		print_json_string(f->u.closed.message, f->u.closed.message_len);
		break;
	case FT_SCROLLBACK:
		printf("{\"type\":\"scrollback\",\"channel\":%u", f->channel);
		break;
	case FT_INPUT_TAKEN:
		printf("{\"type\":\"input-taken\",\"channel\":%u,\"total\":%llu", f->channel,
		    (unsigned long long)f->u.input_taken.total);
		break;
	default:
		printf("{\"error\":\"decoded a type the oracle does not know\"");
		break;
	}
	printf("}\n");
}

static void
decode(const char *hex)
{
	struct server_frame f;
	char err[256];
	size_t n;
	uint8_t *bytes = hex != NULL ? oracle_hex_decode(hex, &n) : NULL;

	if (bytes == NULL) {
		print_error("decode wants one hex argument");
		return;
	}
	if (frame_decode(bytes, n, &f, err, sizeof err) == 0)
		print_frame(&f);
	else
		print_error(err);
	free(bytes);
}

/* Runs one `encode` request into out; a message for people, or NULL when it encoded. */
static const char *
encode(int argc, char **argv, struct buf *out)
{
	const char *what = argv[0];
	uint64_t channel = 0, a = 0, b = 0, c = 0, d = 0;
	uint8_t *bytes = NULL, *more = NULL;
	size_t n = 0, more_n = 0;
	const char *failed = NULL;
	int rc = -1;

	if (argc >= 2 && strcmp(what, "hello") != 0 && number(argv[1], UINT32_MAX, &channel) < 0)
		return "the channel is not a u32";
	if (strcmp(what, "hello") == 0 && argc == 5) {
		if (number(argv[1], 1, &a) < 0 || number(argv[2], 1, &b) < 0 || (bytes = oracle_hex_decode(argv[4], &n)) == NULL)
			return "hello wants READ_ONLY ASKS_BUILD KIND WRITER";
		if (strcmp(argv[4], "-") != 0 && n != WRITER_ID_BYTES)
			failed = "the writer is not 16 bytes";
		else
			rc = frame_hello(out, a == 1, b == 1, false, argv[3], strcmp(argv[4], "-") == 0 ? NULL : bytes);
	} else if (strcmp(what, "subscribe") == 0 && (argc == 7 || argc == 9)) {
		struct resume_point resume = { .seq = 0 };

		if (number(argv[2], UINT16_MAX, &a) < 0 || number(argv[3], UINT16_MAX, &b) < 0 ||
		    number(argv[4], 1, &c) < 0 || number(argv[5], 1, &d) < 0 ||
		    (bytes = oracle_hex_decode(argv[6], &n)) == NULL)
			return "subscribe wants CHANNEL COLS ROWS KEEPS_HISTORY REPAINT SESSION [BOOT SEQ]";
		if (argc == 9) {
			if ((more = oracle_hex_decode(argv[7], &more_n)) == NULL || more_n >= sizeof resume.boot ||
			    number(argv[8], UINT64_MAX, &resume.seq) < 0) {
				free(bytes);
				free(more);
				return "subscribe's BOOT is not hex of at most 127 bytes or SEQ not a number";
			}
			memcpy(resume.boot, more, more_n + 1);
		}
		if (memchr(bytes, 0, n) != NULL || (more != NULL && memchr(more, 0, more_n) != NULL))
			failed = "a NUL in a name cannot pass through a C string";
		else
			rc = frame_subscribe(out, (uint32_t)channel, (const char *)bytes, NULL, (uint16_t)a, (uint16_t)b,
			    argc == 9 ? &resume : NULL, c == 1, d == 1);
	} else if (strcmp(what, "unsubscribe") == 0 && argc == 2) {
		rc = frame_unsubscribe(out, (uint32_t)channel);
	} else if (strcmp(what, "input") == 0 && argc == 3) {
		if ((bytes = oracle_hex_decode(argv[2], &n)) == NULL)
			return "input wants CHANNEL DATA";
		rc = frame_input(out, (uint32_t)channel, bytes, n);
	} else if (strcmp(what, "input-at") == 0 && argc == 4) {
		if (number(argv[2], UINT64_MAX, &a) < 0 || (bytes = oracle_hex_decode(argv[3], &n)) == NULL)
			return "input-at wants CHANNEL AT DATA";
		rc = frame_input_at(out, (uint32_t)channel, a, bytes, n);
	} else if (strcmp(what, "resize-request") == 0 && argc == 4) {
		if (number(argv[2], UINT16_MAX, &a) < 0 || number(argv[3], UINT16_MAX, &b) < 0)
			return "resize-request wants CHANNEL COLS ROWS (u16)";
		rc = frame_resize_request(out, (uint32_t)channel, (uint16_t)a, (uint16_t)b);
	} else if (strcmp(what, "ack") == 0 && argc == 3) {
		if (number(argv[2], UINT64_MAX, &a) < 0)
			return "ack wants CHANNEL SEQ";
		rc = frame_ack(out, (uint32_t)channel, a);
	} else
		return "unknown encode request or wrong argument count";
	free(bytes);
	free(more);
	if (failed != NULL)
		return failed;
	return rc == 0 ? NULL : "the encoder refused it";
}

static void
handle(struct oracle_request *r, struct buf *out)
{
	char **argv = r->word;
	int argc = r->count;

	if (r->too_many || argc > MAX_ARGS) {
		print_error("too many arguments");
		return;
	}
	if (argc == 0) {
		print_error("an empty request");
		return;
	}
	if (strcmp(argv[0], "decode") == 0) {
		decode(argc == 2 ? argv[1] : NULL);
	} else if (strcmp(argv[0], "encode") == 0 && argc >= 2) {
		const char *failed;

		if ((failed = encode(argc - 1, argv + 1, out)) != NULL) {
			print_error(failed);
		} else {
			printf("{\"hex\":");
			print_hex(out->data, out->len);
			printf("}\n");
		}
	} else
		print_error("a request is `decode HEX` or `encode TYPE ARGS...`");
}

int
main(void)
{
	return oracle_serve(handle, OUT_CAP_BYTES);
}
