/*
 * oracle_paint.c -- the C painter, keys and untaken input on stdin/stdout,
 * for the TypeScript test that holds them against src/cli/attach/ and
 * src/protocol/ (test/viewer-native/paint.test.ts).  One request a line,
 * one answer line back for each, in order.  Bytes go both ways as hex, "-"
 * for none; flags are 0 or 1; MODES is FLAGS,TRACKING,ENCODING with FLAGS
 * the SNAPSHOT mode bits of viewer-frames.ts (1 cursor hidden, 2 alternate
 * screen, 4 application cursor keys, 8 application keypad, 16 bracketed
 * paste, 32 focus, 64 origin, 128 insert, 256 wraparound) in decimal and
 * the mouse modes by their names there (none, x10, ..., sgr-pixels).
 *
 *   off                                   PAINT_INPUT_MODES_OFF
 *   modes MODES                           paint_input_modes
 *   snapshot DATA MODES ROWS COLS ALT FIRST   paint_snapshot
 *   view DATA MODES ALT                   paint_view
 *   leave ALT ORIGIN COLS ROWS            paint_leave
 *   status TEXT COLS ROWS                 paint_status_line (TEXT: UTF-8, in hex)
 *       the bytes written, in hex
 *   track ACTIVE CHUNK...
 *       the tracker fed each chunk in turn: after each, two digits
 *       (active, origin mode), space-separated
 *   prefix PREFIX CHUNK...
 *       the filter fed each chunk as a viewer's loop feeds it (after a
 *       command, the rest again): for each feed, FORWARD:COMMAND (none,
 *       detach, keys, sessions), space-separated
 *   detach-key SPEC                       "ok N" or "error MESSAGE" (SPEC, MESSAGE in hex)
 *   describe N                            detach_key_describe, in hex
 *   tail HEX                              utf8_incomplete_tail
 *   split HEX                             the pieces of untaken_add: AT:HEX, space-separated
 *   untaken OP...
 *       a script: a:HEX adds (answers a), t:N takes (t1 or t0), r rewinds
 *       (r), u sends what is unsent (u, then AT:LENGTH for each piece,
 *       comma-separated), b the untaken bytes (b and the count)
 *
 * A request it cannot read answers "error" and what is wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer.h"
#include "oracle_io.h"

#define OUT_CAP_BYTES (64u * 1024u * 1024u)

static const char *const mouse_trackings[] = { "none", "x10", "vt200", "drag", "any" };
static const char *const mouse_encodings[] = { "unknown", "default", "utf8", "sgr", "urxvt", "sgr-pixels" };
static const char *const commands[] = {
	[PC_NONE] = "none", [PC_DETACH] = "detach", [PC_KEYS] = "keys", [PC_SESSIONS] = "sessions",
};

static int
name_index(const char *name, const char *const *names, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		if (strcmp(name, names[i]) == 0)
			return (int)i;
	}
	return -1;
}

static bool
parse_modes(const char *text, struct screen_modes *m)
{
	char tracking[32], encoding[32];
	unsigned flags;
	int t, e;

	if (sscanf(text, "%u,%31[^,],%31s", &flags, tracking, encoding) != 3)
		return false;
	t = name_index(tracking, mouse_trackings, 5);
	e = name_index(encoding, mouse_encodings, 6);
	if (t < 0 || e < 0)
		return false;
	memset(m, 0, sizeof *m);
	m->cursor_hidden = flags & 0x001;
	m->alt_screen = flags & 0x002;
	m->app_cursor_keys = flags & 0x004;
	m->app_keypad = flags & 0x008;
	m->bracketed_paste = flags & 0x010;
	m->send_focus = flags & 0x020;
	m->origin_mode = flags & 0x040;
	m->insert_mode = flags & 0x080;
	m->wraparound = flags & 0x100;
	m->mouse_tracking = (enum mouse_tracking)t;
	m->mouse_encoding = (enum mouse_encoding)e;
	return true;
}

static int
number(const struct oracle_request *r, int i)
{
	return atoi(r->word[i]);
}

static bool
flag(const struct oracle_request *r, int i)
{
	return strcmp(r->word[i], "1") == 0;
}

/* The painter requests: each answers the bytes written. */
static const char *
answer_paint(const struct oracle_request *r, struct buf *out)
{
	const char *verb = r->word[0];
	struct screen_modes m;
	uint8_t *data = NULL;
	size_t len = 0;
	int rc = -1;

	if (strcmp(verb, "off") == 0)
		rc = buf_appends(out, PAINT_INPUT_MODES_OFF);
	else if (strcmp(verb, "modes") == 0 && r->count == 2 && parse_modes(r->word[1], &m))
		rc = paint_input_modes(out, &m);
	else if (strcmp(verb, "leave") == 0 && r->count == 5)
		rc = paint_leave(out, flag(r, 1), flag(r, 2), number(r, 3), number(r, 4));
	else if (strcmp(verb, "snapshot") == 0 && r->count == 7 && parse_modes(r->word[2], &m) &&
	    (data = oracle_hex_decode(r->word[1], &len)) != NULL)
		rc = paint_snapshot(out, data, len, &m, number(r, 3), number(r, 4), flag(r, 5), flag(r, 6));
	else if (strcmp(verb, "view") == 0 && r->count == 4 && parse_modes(r->word[2], &m) &&
	    (data = oracle_hex_decode(r->word[1], &len)) != NULL)
		rc = paint_view(out, data, len, &m, flag(r, 3));
	else if (strcmp(verb, "status") == 0 && r->count == 4 && (data = oracle_hex_decode(r->word[1], &len)) != NULL)
		rc = paint_status_line(out, (const char *)data, number(r, 2), number(r, 3));
	else
		return "cannot read the request";
	free(data);
	if (rc < 0)
		return "the painter refused";
	oracle_print_hex(out->data, out->len);
	return NULL;
}

static const char *
answer_track(const struct oracle_request *r)
{
	struct alt_tracker t;

	alt_tracker_init(&t, r->count > 1 && flag(r, 1));
	for (int i = 2; i < r->count; i++) {
		size_t len;
		uint8_t *chunk = oracle_hex_decode(r->word[i], &len);

		if (chunk == NULL)
			return "a chunk is not hex";
		alt_tracker_feed(&t, chunk, len);
		free(chunk);
		printf("%s%d%d", i > 2 ? " " : "", t.active, t.origin_mode);
	}
	return NULL;
}

static const char *
answer_prefix(const struct oracle_request *r, struct buf *forward)
{
	struct prefix_filter f;
	bool first = true;

	if (r->count < 2)
		return "no prefix";
	prefix_filter_init(&f, number(r, 1));
	for (int i = 2; i < r->count; i++) {
		size_t len, from = 0;
		uint8_t *chunk = oracle_hex_decode(r->word[i], &len);

		if (chunk == NULL)
			return "a chunk is not hex";
		/* An empty read is fed too: the TypeScript filter answers it. */
		do {
			size_t consumed = 0;
			enum prefix_command c;

			buf_clear(forward);
			c = prefix_filter_feed(&f, chunk + from, len - from, forward, &consumed);
			from += consumed;
			printf("%s", first ? "" : " ");
			oracle_print_hex(forward->data, forward->len);
			printf(":%s", commands[c]);
			first = false;
		} while (from < len);
		free(chunk);
	}
	return NULL;
}

static const char *
answer_detach_key(const struct oracle_request *r)
{
	char err[1024];
	size_t len;
	uint8_t *spec;
	int key;

	if (r->count != 2 || (spec = oracle_hex_decode(r->word[1], &len)) == NULL)
		return "cannot read the request";
	key = detach_key_parse((const char *)spec, err, sizeof err);
	if (key >= 0)
		printf("ok %d", key);
	else {
		printf("error ");
		oracle_print_hex((const uint8_t *)err, strlen(err));
	}
	free(spec);
	return NULL;
}

static void
print_pieces(const struct untaken *u, size_t from)
{
	for (size_t i = from; i < u->count; i++) {
		printf("%s%llu:", i > from ? " " : "", (unsigned long long)u->pieces[i].at);
		oracle_print_hex(u->pieces[i].data, u->pieces[i].len);
	}
}

static void
print_sent(void *ctx, const struct input_piece *piece)
{
	bool *first = ctx;

	printf("%s%llu:%zu", *first ? "" : ",", (unsigned long long)piece->at, piece->len);
	*first = false;
}

static const char *
answer_untaken(const struct oracle_request *r)
{
	struct untaken u;
	const char *failed = NULL;

	untaken_init(&u);
	for (int i = 1; i < r->count && failed == NULL; i++) {
		const char *op = r->word[i];
		bool first = true;
		size_t len;
		uint8_t *data;

		printf("%s", i > 1 ? " " : "");
		if (strncmp(op, "a:", 2) == 0 && (data = oracle_hex_decode(op + 2, &len)) != NULL) {
			if (untaken_add(&u, data, len) < 0)
				failed = "no memory";
			free(data);
			printf("a");
		} else if (strncmp(op, "t:", 2) == 0)
			printf("t%d", untaken_take(&u, strtoull(op + 2, NULL, 10)));
		else if (strcmp(op, "r") == 0) {
			untaken_rewind(&u);
			printf("r");
		} else if (strcmp(op, "u") == 0) {
			printf("u");
			untaken_send_unsent(&u, print_sent, &first);
		} else if (strcmp(op, "b") == 0)
			printf("b%llu", (unsigned long long)untaken_bytes(&u));
		else
			failed = "an unknown step";
	}
	untaken_free(&u);
	return failed;
}

static const char *
answer(const struct oracle_request *r, struct buf *out)
{
	const char *verb = r->word[0];
	size_t len;
	uint8_t *data;

	if (strcmp(verb, "track") == 0)
		return answer_track(r);
	if (strcmp(verb, "prefix") == 0)
		return answer_prefix(r, out);
	if (strcmp(verb, "detach-key") == 0)
		return answer_detach_key(r);
	if (strcmp(verb, "untaken") == 0)
		return answer_untaken(r);
	if (strcmp(verb, "describe") == 0 && r->count == 2) {
		char shown[16];

		detach_key_describe(number(r, 1), shown, sizeof shown);
		oracle_print_hex((const uint8_t *)shown, strlen(shown));
		return NULL;
	}
	if ((strcmp(verb, "tail") == 0 || strcmp(verb, "split") == 0) && r->count == 2) {
		struct untaken u;

		if ((data = oracle_hex_decode(r->word[1], &len)) == NULL)
			return "not hex";
		if (verb[0] == 't')
			printf("%zu", utf8_incomplete_tail(data, len));
		else {
			untaken_init(&u);
			if (untaken_add(&u, data, len) == 0)
				print_pieces(&u, 0);
			untaken_free(&u);
		}
		free(data);
		return NULL;
	}
	return answer_paint(r, out);
}

/* One line: its answer, or "error" and what is wrong; nothing for an empty line. */
static void
answer_line(struct oracle_request *r, struct buf *out)
{
	const char *failed;

	if (r->count == 0)
		return;
	/* A request of more than ORACLE_MAX_WORDS words is answered for its first ones. */
	failed = answer(r, out);
	if (failed != NULL)
		printf("error %s", failed);
	putchar('\n');
}

int
main(void)
{
	return oracle_serve(answer_line, OUT_CAP_BYTES);
}
