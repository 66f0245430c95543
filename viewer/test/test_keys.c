/*
 * test_keys.c -- the keys and the typed input: the detach key's spellings
 * and refusals (the TypeScript viewer's messages), the prefix filter across
 * every chunking of each input, where a read ends inside a UTF-8
 * character, and the untaken input's numbering through add, send, take and
 * a reconnect.  test/viewer-native/paint.test.ts holds the same functions
 * against the TypeScript ones on random inputs.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "viewer.h"

#define FS "\x1c"

/* ----------------------------------------------------------- detach key */

static void
check_key(const char *spec, int want)
{
	char err[256] = "";
	int got = detach_key_parse(spec, err, sizeof err);

	if (got != want)
		fprintf(stderr, "  detach key \"%s\": got %d (%s), want %d\n", spec, got, err, want);
	CHECK(got == want);
}

static void
check_key_refused(const char *spec, const char *message)
{
	char err[256] = "";

	CHECK(detach_key_parse(spec, err, sizeof err) == -1);
	if (strcmp(err, message) != 0)
		fprintf(stderr, "  detach key \"%s\": got \"%s\"\n  want \"%s\"\n", spec, err, message);
	CHECK(strcmp(err, message) == 0);
}

#define NOT_A_KEY(spec) "cannot use \"" spec "\" as a detach key: give a control key like C-\\ (the default), C-a or ^]"

static void
test_detach_key(void)
{
	char shown[16];

	check_key("C-\\", 0x1c);
	check_key("c-a", 0x01);
	check_key("^]", 0x1d);
	check_key("ctrl-]", 0x1d);
	check_key("CTRL+b", 0x02);
	check_key("Ctrl-_", 0x1f);
	check_key("C-@", 0x00);
	check_key("\x01", 0x01);
	check_key(" C-a\t", 0x01);
	/* Trimmed as JavaScript trims: a no-break space and an ideographic space too. */
	check_key("\xc2\xa0" "C-a" "\xe3\x80\x80", 0x01);
	/* The character's upper case, as toUpperCase gives it: "ß" is "SS", so C-ß is Ctrl-S. */
	check_key("c-\xc3\x9f", 0x13);
	check_key("c-\xc4\xb1", 0x09);

	check_key_refused("C-?", "Ctrl-? is DEL, which terminals send for Backspace; choose another detach key");
	check_key_refused("ctrl+?", "Ctrl-? is DEL, which terminals send for Backspace; choose another detach key");
	check_key_refused("a", NOT_A_KEY("a"));
	check_key_refused("", NOT_A_KEY(""));
	/* A tab is trimmed away, so nothing is left; the message shows the spelling as given. */
	check_key_refused("\t", NOT_A_KEY("\t"));
	check_key_refused("C-", NOT_A_KEY("C-"));
	check_key_refused("C-ab", NOT_A_KEY("C-ab"));
	check_key_refused("C-`", NOT_A_KEY("C-`"));
	check_key_refused(" ^{ ", NOT_A_KEY(" ^{ "));
	check_key_refused("alt-a", NOT_A_KEY("alt-a"));
	/* One UTF-16 unit after the dash, as the TypeScript reads it: an emoji is two. */
	check_key_refused("C-\xf0\x9f\x98\x80", NOT_A_KEY("C-\xf0\x9f\x98\x80"));
	check_key_refused("C-\xc3\xa9", NOT_A_KEY("C-\xc3\xa9"));

	detach_key_describe(0x1c, shown, sizeof shown);
	CHECK(strcmp(shown, "Ctrl-\\") == 0);
	detach_key_describe(0x01, shown, sizeof shown);
	CHECK(strcmp(shown, "Ctrl-A") == 0);
	detach_key_describe(0x00, shown, sizeof shown);
	CHECK(strcmp(shown, "Ctrl-@") == 0);
	detach_key_describe(0x1f, shown, sizeof shown);
	CHECK(strcmp(shown, "Ctrl-_") == 0);
}

/* -------------------------------------------------------- prefix filter */

/*
 * Feeds the input cut at `cuts` as a viewer's loop does (a command stops a
 * feed, the rest is fed again) and writes what the session gets, with each
 * command as {d}, {s} or {?}.
 */
static void
filter_run(int prefix, const char *in, size_t n, const size_t *cuts, size_t ncuts, struct buf *got)
{
	static const char *const shown[] = { [PC_DETACH] = "{d}", [PC_SESSIONS] = "{s}", [PC_KEYS] = "{?}" };
	struct prefix_filter f;
	size_t from = 0;

	prefix_filter_init(&f, prefix);
	buf_clear(got);
	for (size_t c = 0; c <= ncuts; c++) {
		size_t to = c < ncuts ? cuts[c] : n;

		while (from < to) {
			size_t consumed = 0;
			enum prefix_command command = prefix_filter_feed(&f, (const uint8_t *)in + from, to - from, got, &consumed);

			CHECK(consumed > 0 && consumed <= to - from);
			if (consumed == 0)
				return;
			from += consumed;
			if (command != PC_NONE)
				buf_appends(got, shown[command]);
		}
	}
}

static bool
filter_gives(const struct buf *got, const char *want)
{
	return got->len == strlen(want) && memcmp(got->data, want, got->len) == 0;
}

/* A cut right after the prefix and ESC makes the ESC the Esc key itself: that is another input. */
static bool
filter_cut_after_prefix_esc(const char *in, size_t cut, int prefix)
{
	return cut >= 2 && in[cut - 1] == 0x1b && (uint8_t)in[cut - 2] == prefix;
}

/* Every cut of the input into one, two and three reads gives `want`. */
static void
check_filter(const char *in, size_t n, const char *want)
{
	struct buf got;
	size_t cuts[2];
	int wrong = 0;

	buf_init(&got, 4096);
	filter_run(0x1c, in, n, cuts, 0, &got);
	wrong += !filter_gives(&got, want);
	for (cuts[0] = 1; cuts[0] < n; cuts[0]++) {
		if (filter_cut_after_prefix_esc(in, cuts[0], 0x1c))
			continue;
		filter_run(0x1c, in, n, cuts, 1, &got);
		wrong += !filter_gives(&got, want);
		for (cuts[1] = cuts[0] + 1; cuts[1] < n; cuts[1]++) {
			if (filter_cut_after_prefix_esc(in, cuts[1], 0x1c))
				continue;
			filter_run(0x1c, in, n, cuts, 2, &got);
			wrong += !filter_gives(&got, want);
		}
	}
	if (wrong > 0)
		fprintf(stderr, "  prefix filter: %d chunkings of a %zu-byte input wrong (want \"%s\")\n", wrong, n, want);
	CHECK(wrong == 0);
	buf_free(&got);
}

#define CHECK_FILTER(in, want) check_filter((in), sizeof (in) - 1, (want))

static void
test_prefix_filter(void)
{
	struct buf got;
	size_t cuts[1] = { 2 }, consumed;
	struct prefix_filter f;

	CHECK_FILTER("plain typing", "plain typing");
	CHECK_FILTER("a" FS "db", "a{d}b");
	CHECK_FILTER(FS "s" FS "?" FS "d", "{s}{?}{d}");
	/* The prefix twice sends one; three and a command send one and run it. */
	CHECK_FILTER("x" FS FS "y", "x" FS "y");
	CHECK_FILTER(FS FS FS "d", FS "{d}");
	/* Any other key after the prefix is swallowed whole. */
	CHECK_FILTER(FS "xy", "y");
	CHECK_FILTER(FS "\x1b[15~z", "z");
	CHECK_FILTER(FS "\x1b[1;5Az", "z");
	CHECK_FILTER(FS "\x1bOPz", "z");
	CHECK_FILTER(FS "\x1bxz", "z");
	CHECK_FILTER(FS "\xc3\xa9z", "z");
	CHECK_FILTER(FS "\xe4\xb8\x80z", "z");
	CHECK_FILTER(FS "\xf0\x9f\x98\x80z", "z");
	/* A mouse report: CSI M and three raw bytes (which may look like anything, a `d` too). */
	CHECK_FILTER(FS "\x1b[M d!z", "z");
	CHECK_FILTER(FS "\x1b[<0;10;5Mz", "z");
	/* Not a key sequence after all: the byte that says so is typing again. */
	CHECK_FILTER(FS "\x1b[1\x01z", "\x01z");
	CHECK_FILTER(FS "\x1b[1\x1c" "d", "{d}");
	/* A CSI longer than a key is not one: its 33rd byte is typed. */
	CHECK_FILTER(FS "\x1b[" "11111111111111111111111111111111" "2z", "2z");
	CHECK_FILTER("\x1b[A" FS "d", "\x1b[A{d}");

	/* A lone ESC at the end of a read after the prefix is the Esc key: the next read is typing. */
	buf_init(&got, 4096);
	filter_run(0x1c, FS "\x1b[A", 4, cuts, 1, &got);
	CHECK(filter_gives(&got, "[A"));
	filter_run(0x1c, FS "\x1b[A", 4, cuts, 0, &got);
	CHECK(filter_gives(&got, ""));
	/* Another prefix. */
	filter_run(0x01, "a\x01" "db\x1c", 5, cuts, 0, &got);
	CHECK(filter_gives(&got, "a{d}b\x1c"));
	buf_free(&got);

	/* A forward buffer too full for the next byte stops the feed before it; nothing is lost. */
	buf_init(&got, 2);
	prefix_filter_init(&f, 0x1c);
	CHECK(prefix_filter_feed(&f, (const uint8_t *)"abcd", 4, &got, &consumed) == PC_NONE);
	CHECK(consumed == 2 && filter_gives(&got, "ab"));
	buf_clear(&got);
	/* The prefix typed twice with no room for the one it sends: the second is fed again. */
	CHECK(prefix_filter_feed(&f, (const uint8_t *)"cd" FS FS, 4, &got, &consumed) == PC_NONE);
	CHECK(consumed == 3 && filter_gives(&got, "cd"));
	buf_clear(&got);
	CHECK(prefix_filter_feed(&f, (const uint8_t *)FS "e", 2, &got, &consumed) == PC_NONE);
	CHECK(consumed == 2 && filter_gives(&got, FS "e"));
	buf_free(&got);
}

/* ------------------------------------------------------------- UTF-8 */

static void
test_utf8_tail(void)
{
	CHECK(utf8_incomplete_tail((const uint8_t *)"", 0) == 0);
	CHECK(utf8_incomplete_tail((const uint8_t *)"a", 1) == 0);
	CHECK(utf8_incomplete_tail((const uint8_t *)"a\xc3", 2) == 1);
	CHECK(utf8_incomplete_tail((const uint8_t *)"\xc3\xa9", 2) == 0);
	CHECK(utf8_incomplete_tail((const uint8_t *)"\xe4\xb8", 2) == 2);
	CHECK(utf8_incomplete_tail((const uint8_t *)"\xe4\xb8\x80", 3) == 0);
	CHECK(utf8_incomplete_tail((const uint8_t *)"x\xf0\x9f\x98", 4) == 3);
	CHECK(utf8_incomplete_tail((const uint8_t *)"\xf0\x9f\x98\x80", 4) == 0);
	/* Not UTF-8 at all: nothing is held (it would wait forever). */
	CHECK(utf8_incomplete_tail((const uint8_t *)"\x80\x80\x80\x80", 4) == 0);
	CHECK(utf8_incomplete_tail((const uint8_t *)"\xc0", 1) == 0);
	CHECK(utf8_incomplete_tail((const uint8_t *)"\xf5\x80", 2) == 0);
	CHECK(utf8_incomplete_tail((const uint8_t *)"\xc3\xa9\xa9", 3) == 0);
}

/* ------------------------------------------------------------ untaken */

struct sent {
	uint64_t at[8];
	size_t len[8];
	size_t count;
};

static void
record_sent(void *ctx, const struct input_piece *piece)
{
	struct sent *s = ctx;

	if (s->count < 8) {
		s->at[s->count] = piece->at;
		s->len[s->count] = piece->len;
	}
	s->count++;
}

static struct sent
send_unsent(struct untaken *u)
{
	struct sent s = { .count = 0 };

	untaken_send_unsent(u, record_sent, &s);
	return s;
}

static void
test_untaken_numbering(void)
{
	struct untaken u;
	struct sent s;

	untaken_init(&u);
	CHECK(untaken_add(&u, (const uint8_t *)"abc", 3) == 0);
	CHECK(untaken_bytes(&u) == 3 && u.next == 3);
	s = send_unsent(&u);
	CHECK(s.count == 1 && s.at[0] == 0 && s.len[0] == 3);
	CHECK(memcmp(u.pieces[0].data, "abc", 3) == 0);
	/* Sent once per connection. */
	CHECK(send_unsent(&u).count == 0);
	CHECK(untaken_add(&u, (const uint8_t *)"de", 2) == 0);
	CHECK(untaken_add(&u, (const uint8_t *)"", 0) == 0 && u.count == 2);
	s = send_unsent(&u);
	CHECK(s.count == 1 && s.at[0] == 3 && s.len[0] == 2);

	/* A piece covered in part is kept whole; wholly covered ones go. */
	CHECK(untaken_take(&u, 2));
	CHECK(u.count == 2 && untaken_bytes(&u) == 3);
	CHECK(untaken_take(&u, 3));
	CHECK(u.count == 1 && u.pieces[0].at == 3);
	/* Nothing new, or not this viewer's count: no change. */
	CHECK(!untaken_take(&u, 3));
	CHECK(!untaken_take(&u, 1));
	CHECK(!untaken_take(&u, 6));
	CHECK(u.taken == 3);

	/* A reconnect sends again all that is not taken, at the same numbers. */
	untaken_rewind(&u);
	s = send_unsent(&u);
	CHECK(s.count == 1 && s.at[0] == 3 && s.len[0] == 2);
	CHECK(untaken_take(&u, 5));
	CHECK(u.count == 0 && untaken_bytes(&u) == 0);
	untaken_rewind(&u);
	CHECK(send_unsent(&u).count == 0);

	/* Taken before sent on this connection: not sent again. */
	CHECK(untaken_add(&u, (const uint8_t *)"fg", 2) == 0);
	CHECK(untaken_add(&u, (const uint8_t *)"h", 1) == 0);
	CHECK(untaken_take(&u, 7));
	s = send_unsent(&u);
	CHECK(s.count == 1 && s.at[0] == 7 && s.len[0] == 1);
	untaken_free(&u);
	CHECK(u.count == 0 && u.pieces == NULL);
}

static void
test_untaken_split(void)
{
	size_t big = MAX_INPUT_BYTES_PER_FRAME + 10;
	uint8_t *p = malloc(big + 1);
	struct untaken u;

	/* ASCII: cut at the limit. */
	memset(p, 'a', big);
	untaken_init(&u);
	CHECK(untaken_add(&u, p, big) == 0);
	CHECK(u.count == 2 && u.pieces[0].len == MAX_INPUT_BYTES_PER_FRAME && u.pieces[1].len == 10);
	CHECK(u.pieces[1].at == MAX_INPUT_BYTES_PER_FRAME && u.next == big);
	untaken_free(&u);

	/* "a" then é's: the limit falls inside an é, which goes whole to the next piece. */
	p[0] = 'a';
	for (size_t i = 1; i + 1 < big; i += 2) {
		p[i] = 0xc3;
		p[i + 1] = 0xa9;
	}
	untaken_init(&u);
	CHECK(untaken_add(&u, p, MAX_INPUT_BYTES_PER_FRAME + 1) == 0);
	CHECK(u.count == 2 && u.pieces[0].len == MAX_INPUT_BYTES_PER_FRAME - 1 && u.pieces[1].len == 2);
	CHECK(u.pieces[1].data[0] == 0xc3);
	untaken_free(&u);

	/* Not UTF-8 (continuation bytes only): stepped back at most 3, never to nothing. */
	memset(p, 0x80, big);
	untaken_init(&u);
	CHECK(untaken_add(&u, p, big) == 0);
	CHECK(u.count == 2 && u.pieces[0].len == MAX_INPUT_BYTES_PER_FRAME - 3 && u.pieces[1].len == 13);
	untaken_free(&u);

	/* Exactly the limit is one piece. */
	untaken_init(&u);
	CHECK(untaken_add(&u, p, MAX_INPUT_BYTES_PER_FRAME) == 0 && u.count == 1);
	untaken_free(&u);
	free(p);
}

void
test_keys(void)
{
	test_detach_key();
	test_prefix_filter();
	test_utf8_tail();
	test_untaken_numbering();
	test_untaken_split();
}
