/*
 * keys.c -- the keys typed into the viewer that are not all for the
 * session: the prefix (default Ctrl-\) as a person spells it and as it is
 * shown, the filter that finds the prefix and the command key after it in
 * typed bytes, and where a read ends inside a UTF-8 character.  The same
 * decisions as src/cli/attach/detach-key.ts, prefix-keys.ts and
 * utf8-carry.ts, so `tend attach --detach-key X` means one key whichever
 * viewer runs, and a hand-off between them never changes what a key does.
 *
 * The filter is a state machine over bytes and accepts any chunking: a
 * prefix at the end of one read waits for the next.  After the prefix a
 * command key runs its command, the prefix again sends one prefix, and any
 * other key is swallowed whole (an escape sequence, a UTF-8 character, a
 * mouse report), as tmux does: a mistyped command never reaches the
 * program as a stray keystroke.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "viewer.h"

#define ESC 0x1b
/* A key that is an escape sequence (arrows, function keys) is this long at most; longer is not a key. */
#define KEY_SEQUENCE_MAX_BYTES 32

/* The filter's states, as in prefix-keys.ts. */
enum {
	/* Bytes go to the session. */
	KEY_GROUND,
	/* The prefix was typed: the next byte says what to do. */
	KEY_PREFIX,
	/* After the prefix, ESC began a key to swallow: `[` (CSI), `O` (SS3) or another byte (Alt-key) follows. */
	KEY_ESC,
	/* Swallowing a CSI key sequence up to its final byte. */
	KEY_CSI,
	/* Swallowing a fixed number of bytes: SS3's final, a UTF-8 character's rest, a mouse report's three. */
	KEY_SKIP,
};

/* The keys after the prefix that do something (PREFIX_KEYS). */
static const struct {
	uint8_t byte;
	enum prefix_command command;
} prefix_keys[] = {
	{ 'd', PC_DETACH },
	{ 's', PC_SESSIONS },
	{ '?', PC_KEYS },
};

/* ---------------------------------------------------------- detach key */

/*
 * What JavaScript's String.prototype.trim takes off both ends, beyond
 * ASCII: the spelling is trimmed as the TypeScript viewer trims it, so a
 * key pasted with a no-break space around it is read the same by both.
 */
static const uint32_t js_space_above_ascii[] = {
	0x00a0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
	0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
};

/*
 * Characters past ASCII whose upper case (toUpperCase, which the
 * TypeScript applies to the key's character) begins with a letter of
 * @..._: `C-ß` is Ctrl-S there, because "ß".toUpperCase() is "SS".
 */
static const struct {
	uint32_t code_point;
	uint8_t upper;
} upper_to_ascii[] = {
	{ 0x00df, 'S' }, { 0x0131, 'I' }, { 0x017f, 'S' }, { 0x01f0, 'J' },
	{ 0x1e96, 'H' }, { 0x1e97, 'T' }, { 0x1e98, 'W' }, { 0x1e99, 'Y' }, { 0x1e9a, 'A' },
	{ 0xfb00, 'F' }, { 0xfb01, 'F' }, { 0xfb02, 'F' }, { 0xfb03, 'F' }, { 0xfb04, 'F' },
	{ 0xfb05, 'S' }, { 0xfb06, 'S' },
};

#define ARRAY_LENGTH(a) (sizeof (a) / sizeof (a)[0])

/*
 * Decodes the UTF-8 character at p (n bytes left): its code point and
 * length, or length 0 when the bytes are not a whole, well-formed character.
 */
static size_t
utf8_decode(const uint8_t *p, size_t n, uint32_t *cp)
{
	size_t need;
	uint32_t min;

	if (n == 0)
		return 0;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	}
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		need = 2;
		*cp = p[0] & 0x1f;
		min = 0x80;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		need = 3;
		*cp = p[0] & 0x0f;
		min = 0x800;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		need = 4;
		*cp = p[0] & 0x07;
		min = 0x10000;
	} else
		return 0;
	if (n < need)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (p[i] & 0x3f);
	}
	if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return need;
}

static bool
is_js_space(uint32_t cp)
{
	if (cp == ' ' || (cp >= 0x09 && cp <= 0x0d))
		return true;
	for (size_t i = 0; i < ARRAY_LENGTH(js_space_above_ascii); i++) {
		if (js_space_above_ascii[i] == cp)
			return true;
	}
	return false;
}

/* The length of the JavaScript whitespace character at p, or 0. */
static size_t
js_space_at(const uint8_t *p, size_t n)
{
	uint32_t cp;
	size_t len = utf8_decode(p, n, &cp);

	return len > 0 && is_js_space(cp) ? len : 0;
}

/* The length of the JavaScript whitespace character that ends p[0..n), or 0. */
static size_t
js_space_before(const uint8_t *p, size_t n)
{
	size_t back = 1;

	/* Step back over continuation bytes to the character's lead byte (at most 3 of them). */
	while (back < n && back < 4 && (p[n - back] & 0xc0) == 0x80)
		back++;
	return js_space_at(p + n - back, back) == back ? back : 0;
}

/* `c-`, `ctrl-`, `ctrl+` or `^` in any case: its length, or 0. */
static size_t
detach_key_ctrl_word(const char *text, size_t n)
{
	static const char *const words[] = { "ctrl-", "ctrl+", "c-", "^" };

	for (size_t i = 0; i < ARRAY_LENGTH(words); i++) {
		size_t len = strlen(words[i]);

		if (n >= len && strncasecmp(text, words[i], len) == 0)
			return len;
	}
	return 0;
}

/* The byte a character after `C-` stands for (its upper case, @.._ to 0..0x1f), or -1. */
static int
detach_key_control_of(uint32_t cp)
{
	uint32_t upper = cp >= 'a' && cp <= 'z' ? cp - 0x20 : cp;

	for (size_t i = 0; i < ARRAY_LENGTH(upper_to_ascii); i++) {
		if (upper_to_ascii[i].code_point == cp)
			upper = upper_to_ascii[i].upper;
	}
	/* Ctrl-@ .. Ctrl-_ map to 0x00 .. 0x1f (the key's code with bit 0x40 cleared). */
	return upper >= 0x40 && upper <= 0x5f ? (int)(upper & 0x1f) : -1;
}

/*
 * Only control keys are accepted: a printable prefix would eat a letter the
 * user means to type.  The message names the spelling as given, untrimmed.
 */
int
detach_key_parse(const char *spec, char *err, size_t errlen)
{
	const uint8_t *p = (const uint8_t *)spec;
	size_t start = 0, end = strlen(spec), len, word;

	while (start < end && (len = js_space_at(p + start, end - start)) > 0)
		start += len;
	while (end > start && (len = js_space_before(p + start, end - start)) > 0)
		end -= len;
	if (end - start == 1 && p[start] < 0x20)
		return p[start];
	word = detach_key_ctrl_word(spec + start, end - start);
	if (word > 0) {
		uint32_t cp;
		size_t at = start + word;

		len = utf8_decode(p + at, end - at, &cp);
		/*
		 * One character, as the TypeScript's `.` takes it: one UTF-16
		 * unit (so not past U+FFFF) and not a line break.
		 */
		if (len > 0 && at + len == end && cp <= 0xffff && cp != '\n' && cp != '\r' &&
		    cp != 0x2028 && cp != 0x2029) {
			int control;

			if (cp == '?') {
				snprintf(err, errlen, "Ctrl-? is DEL, which terminals send for Backspace; choose another detach key");
				return -1;
			}
			control = detach_key_control_of(cp);
			if (control >= 0)
				return control;
		}
	}
	snprintf(err, errlen, "cannot use \"%s\" as a detach key: give a control key like C-\\ (the default), C-a or ^]", spec);
	return -1;
}

void
detach_key_describe(int prefix, char *out, size_t outlen)
{
	snprintf(out, outlen, "Ctrl-%c", (char)((prefix | 0x40) & 0x7f));
}

/* ------------------------------------------------------- prefix filter */

void
prefix_filter_init(struct prefix_filter *f, int prefix)
{
	f->prefix = prefix;
	f->state = KEY_GROUND;
	f->count = 0;
}

/* How many continuation bytes follow a UTF-8 lead byte (0 for ASCII or a stray byte). */
static int
utf8_trail_bytes(uint8_t lead)
{
	if (lead >= 0xf0 && lead <= 0xf7)
		return 3;
	if (lead >= 0xe0)
		return lead <= 0xef ? 2 : 0;
	if (lead >= 0xc2)
		return 1;
	return 0;
}

static void
prefix_filter_skip(struct prefix_filter *f, int bytes)
{
	f->count = bytes;
	f->state = bytes > 0 ? KEY_SKIP : KEY_GROUND;
}

static enum prefix_command
prefix_command_of(uint8_t byte)
{
	for (size_t i = 0; i < ARRAY_LENGTH(prefix_keys); i++) {
		if (prefix_keys[i].byte == byte)
			return prefix_keys[i].command;
	}
	return PC_NONE;
}

/*
 * A `forward` too full for the next byte stops the feed early too: PC_NONE
 * with *consumed < n, the byte at *consumed not yet looked at; write out
 * what `forward` holds and feed the rest.
 */
enum prefix_command
prefix_filter_feed(struct prefix_filter *f, const uint8_t *p, size_t n, struct buf *forward, size_t *consumed)
{
	size_t i;

	/* Most reads hold no prefix at all and are passed as they are. */
	if (f->state == KEY_GROUND && memchr(p, f->prefix, n) == NULL && buf_append(forward, p, n) == 0) {
		*consumed = n;
		return PC_NONE;
	}
	for (i = 0; i < n; i++) {
		uint8_t byte = p[i];

		switch (f->state) {
		case KEY_GROUND:
			if (byte == f->prefix)
				f->state = KEY_PREFIX;
			else if (buf_append(forward, &byte, 1) < 0)
				goto full;
			break;
		case KEY_PREFIX: {
			enum prefix_command command;

			if (byte == f->prefix) {
				if (buf_append(forward, &byte, 1) < 0)
					goto full;
				f->state = KEY_GROUND;
				break;
			}
			f->state = KEY_GROUND;
			command = prefix_command_of(byte);
			if (command != PC_NONE) {
				*consumed = i + 1;
				return command;
			}
			/*
			 * Not a command: swallow the whole key, not just its first
			 * byte.  A lone ESC at the end of a read is the Esc key itself.
			 */
			if (byte == ESC && i + 1 < n)
				f->state = KEY_ESC;
			else
				prefix_filter_skip(f, utf8_trail_bytes(byte));
			break;
		}
		case KEY_ESC:
			if (byte == '[') {
				f->state = KEY_CSI;
				f->count = 0;
			} else if (byte == 'O')
				prefix_filter_skip(f, 1);
			else
				f->state = KEY_GROUND; /* Alt and a key: both swallowed */
			break;
		case KEY_CSI:
			f->count++;
			if (byte >= 0x40 && byte <= 0x7e) {
				/* `CSI M` with no parameters is a mouse report: three raw bytes follow. */
				if (byte == 'M' && f->count == 1)
					prefix_filter_skip(f, 3);
				else
					f->state = KEY_GROUND;
			} else if (byte < 0x20 || byte > 0x3f || f->count > KEY_SEQUENCE_MAX_BYTES) {
				/* Not a key sequence after all: this byte is typing again. */
				f->state = KEY_GROUND;
				i--;
			}
			break;
		case KEY_SKIP:
			if (--f->count == 0)
				f->state = KEY_GROUND;
			break;
		}
	}
	*consumed = n;
	return PC_NONE;
full:
	*consumed = i;
	return PC_NONE;
}

/* ------------------------------------------------------------- UTF-8 */

/*
 * A read may end inside a character (a large paste comes in tty-buffer
 * pieces); the protocol promises never to hand the PTY half a character at
 * a frame boundary, so that tail waits for the next read.
 */
size_t
utf8_incomplete_tail(const uint8_t *p, size_t n)
{
	/* A sequence is at most 4 bytes: look back over at most 3 continuation bytes. */
	for (size_t back = 1; back <= n && back <= 4; back++) {
		uint8_t b = p[n - back];
		size_t need;

		if ((b & 0xc0) == 0x80)
			continue;
		need = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 1;
		/* An ASCII or invalid lead ends nothing incomplete; a lead short of what it needs is the tail. */
		return need > back ? back : 0;
	}
	return 0;
}
