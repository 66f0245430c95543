/*
 * json.c -- reads a few top-level fields of one JSON object: the API's reply
 * for a session (GET /v1/sessions/:target) and the home's lock
 * ({"pid":N,"socket":"...","version":"..."}).  Not a JSON library: the
 * whole text is checked as JSON (what JSON.parse would refuse is refused
 * here too), nested values are stepped over without being kept, and only
 * the field asked for is converted.  When a key appears twice the last one
 * counts, as with JSON.parse.
 *
 * Strings are unescaped to UTF-8; a lone surrogate (\uD800 unpaired) becomes
 * U+FFFD, which is what Node writes for it.  Nothing is read past `len` and
 * nothing written past `outlen`: a string that does not fit is an error, and
 * so is one holding U+0000 (a C string cannot carry it).
 */
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "viewer.h"

/* Nesting deeper than this is refused (the replies read here are two or three deep). */
#define JSON_MAX_DEPTH 256
/* Keys longer than this are stepped over: no field asked for is that long. */
#define JSON_MAX_KEY_BYTES 128
/* A number's text, converted by strtod; longer numbers are refused. */
#define JSON_MAX_NUMBER_CHARS 128

struct json_reader {
	const uint8_t *p;
	size_t len;
	size_t at;
};

/* Where an unescaped string goes: out may be NULL (checked, not kept). */
struct json_out {
	char *out;
	size_t cap;		/* bytes for the text, its NUL not counted */
	size_t len;
	bool overflow;
	bool has_nul;
};

static void
json_ws(struct json_reader *r)
{
	while (r->at < r->len) {
		uint8_t c = r->p[r->at];

		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			return;
		r->at++;
	}
}

static void
out_put(struct json_out *o, const void *p, size_t n)
{
	if (o->overflow || o->out == NULL)
		return;
	if (n > o->cap - o->len) {
		o->overflow = true;
		return;
	}
	memcpy(o->out + o->len, p, n);
	o->len += n;
}

static void
out_codepoint(struct json_out *o, uint32_t cp)
{
	uint8_t u[4];
	size_t n;

	if (cp == 0)
		o->has_nul = true;
	if (cp < 0x80) {
		u[0] = (uint8_t)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (uint8_t)(0xc0 | cp >> 6);
		u[1] = (uint8_t)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (uint8_t)(0xe0 | cp >> 12);
		u[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (uint8_t)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (uint8_t)(0xf0 | cp >> 18);
		u[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (uint8_t)(0x80 | (cp & 0x3f));
		n = 4;
	}
	out_put(o, u, n);
}

/* The four hex digits of a \u escape at r->at (after the "\u"); -1 when they are not. */
static long
json_hex4(struct json_reader *r)
{
	long v = 0;

	if (r->len - r->at < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int h = hex_digit_value(r->p[r->at + (size_t)i]);

		if (h < 0)
			return -1;
		v = v << 4 | h;
	}
	r->at += 4;
	return v;
}

/* After "\u": one escape, or a surrogate pair of two. */
static int
json_unicode_escape(struct json_reader *r, struct json_out *o)
{
	long hi = json_hex4(r), lo;

	if (hi < 0)
		return -1;
	if (hi >= 0xd800 && hi <= 0xdbff && r->len - r->at >= 6 &&
	    r->p[r->at] == '\\' && r->p[r->at + 1] == 'u') {
		size_t back = r->at;

		r->at += 2;
		lo = json_hex4(r);
		if (lo < 0)
			return -1;
		if (lo >= 0xdc00 && lo <= 0xdfff) {
			out_codepoint(o, 0x10000 + (uint32_t)((hi - 0xd800) << 10 | (lo - 0xdc00)));
			return 0;
		}
		/* Not a low half: the high one stands alone, the next escape is read on its own. */
		r->at = back;
	}
	out_codepoint(o, hi >= 0xd800 && hi <= 0xdfff ? 0xfffd : (uint32_t)hi);
	return 0;
}

/* A string at r->at (its opening quote); 0, or -1 when it is not a JSON string. */
static int
json_string_read(struct json_reader *r, struct json_out *o)
{
	static const char simple_from[] = "\"\\/bfnrt";
	static const char simple_to[] = "\"\\/\b\f\n\r\t";

	if (r->at >= r->len || r->p[r->at] != '"')
		return -1;
	r->at++;
	for (;;) {
		size_t run = r->at;
		uint8_t c;
		const char *which;

		/* Plain characters go across in one copy. */
		while (run < r->len && r->p[run] != '"' && r->p[run] != '\\' && r->p[run] >= 0x20)
			run++;
		out_put(o, r->p + r->at, run - r->at);
		r->at = run;
		if (r->at >= r->len)
			return -1;
		c = r->p[r->at++];
		if (c == '"')
			return 0;
		if (c != '\\')
			return -1;	/* a raw control character */
		if (r->at >= r->len)
			return -1;
		c = r->p[r->at++];
		if (c == 'u') {
			if (json_unicode_escape(r, o) != 0)
				return -1;
			continue;
		}
		which = c != 0 ? strchr(simple_from, c) : NULL;
		if (which == NULL)
			return -1;
		out_put(o, &simple_to[which - simple_from], 1);
	}
}

static bool
is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static void
json_digits(struct json_reader *r)
{
	while (r->at < r->len && is_digit(r->p[r->at]))
		r->at++;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int
json_number_read(struct json_reader *r)
{
	if (r->at < r->len && r->p[r->at] == '-')
		r->at++;
	if (r->at >= r->len || !is_digit(r->p[r->at]))
		return -1;
	if (r->p[r->at] == '0')
		r->at++;
	else
		json_digits(r);
	if (r->at < r->len && r->p[r->at] == '.') {
		r->at++;
		if (r->at >= r->len || !is_digit(r->p[r->at]))
			return -1;
		json_digits(r);
	}
	if (r->at < r->len && (r->p[r->at] == 'e' || r->p[r->at] == 'E')) {
		r->at++;
		if (r->at < r->len && (r->p[r->at] == '+' || r->p[r->at] == '-'))
			r->at++;
		if (r->at >= r->len || !is_digit(r->p[r->at]))
			return -1;
		json_digits(r);
	}
	return 0;
}

static int
json_word(struct json_reader *r, const char *word)
{
	size_t n = strlen(word);

	if (r->len - r->at < n || memcmp(r->p + r->at, word, n) != 0)
		return -1;
	r->at += n;
	return 0;
}

static int json_value_skip(struct json_reader *, int);

/* An object or an array at r->at, stepped over whole. */
static int
json_container_skip(struct json_reader *r, int depth)
{
	uint8_t close = r->p[r->at] == '{' ? '}' : ']';

	if (depth >= JSON_MAX_DEPTH)
		return -1;
	r->at++;
	json_ws(r);
	if (r->at < r->len && r->p[r->at] == close) {
		r->at++;
		return 0;
	}
	for (;;) {
		if (close == '}') {
			struct json_out none = { 0 };

			if (json_string_read(r, &none) != 0)
				return -1;
			json_ws(r);
			if (r->at >= r->len || r->p[r->at] != ':')
				return -1;
			r->at++;
			json_ws(r);
		}
		if (json_value_skip(r, depth + 1) != 0)
			return -1;
		json_ws(r);
		if (r->at >= r->len)
			return -1;
		if (r->p[r->at] == close) {
			r->at++;
			return 0;
		}
		if (r->p[r->at] != ',')
			return -1;
		r->at++;
		json_ws(r);
	}
}

static int
json_value_skip(struct json_reader *r, int depth)
{
	struct json_out none = { 0 };

	if (r->at >= r->len)
		return -1;
	switch (r->p[r->at]) {
	case '{':
	case '[':
		return json_container_skip(r, depth);
	case '"':
		return json_string_read(r, &none);
	case 't':
		return json_word(r, "true");
	case 'f':
		return json_word(r, "false");
	case 'n':
		return json_word(r, "null");
	default:
		return json_number_read(r);
	}
}

/*
 * Checks that the text is one JSON object and finds where the value of
 * `key` starts (the last one when it repeats).  1 found, 0 absent, -1 not
 * an object.
 */
static int
json_find(const char *text, size_t len, const char *key, struct json_reader *value)
{
	struct json_reader r = { (const uint8_t *)text, len, 0 };
	size_t key_len = strlen(key);
	bool found = false;

	json_ws(&r);
	if (r.at >= r.len || r.p[r.at] != '{')
		return -1;
	r.at++;
	json_ws(&r);
	if (r.at < r.len && r.p[r.at] == '}') {
		r.at++;
		goto end;
	}
	for (;;) {
		char name[JSON_MAX_KEY_BYTES];
		struct json_out o = { name, sizeof name, 0, false, false };

		if (json_string_read(&r, &o) != 0)
			return -1;
		json_ws(&r);
		if (r.at >= r.len || r.p[r.at] != ':')
			return -1;
		r.at++;
		json_ws(&r);
		if (!o.overflow && !o.has_nul && o.len == key_len && memcmp(name, key, key_len) == 0) {
			*value = r;
			found = true;
		}
		if (json_value_skip(&r, 1) != 0)
			return -1;
		json_ws(&r);
		if (r.at >= r.len)
			return -1;
		if (r.p[r.at] == '}') {
			r.at++;
			break;
		}
		if (r.p[r.at] != ',')
			return -1;
		r.at++;
		json_ws(&r);
	}
end:
	json_ws(&r);
	if (r.at != r.len)
		return -1;
	return found ? 1 : 0;
}

static bool
json_is_null(const struct json_reader *r)
{
	return r->len - r->at >= 4 && memcmp(r->p + r->at, "null", 4) == 0;
}

/*
 * json_find for a field that may be null: *is_null (when is_null is not
 * NULL) says whether it is. 2 found null, 1 found another value (in *value),
 * 0 absent, -1 the text is not a JSON object.
 */
static int
json_find_nullable(const char *text, size_t len, const char *key, struct json_reader *value, bool *is_null)
{
	int found = json_find(text, len, key, value);
	bool null = found == 1 && json_is_null(value);

	if (is_null != NULL)
		*is_null = null;
	return null ? 2 : found;
}

int
json_string(const char *text, size_t len, const char *key, char *out, size_t outlen, bool *is_null)
{
	struct json_reader v;
	struct json_out o;
	int found;

	if (outlen == 0)
		return -1;
	out[0] = '\0';
	found = json_find_nullable(text, len, key, &v, is_null);
	if (found != 1)
		return found == 2 ? 1 : found;
	if (v.p[v.at] != '"')
		return -1;
	o = (struct json_out){ out, outlen - 1, 0, false, false };
	if (json_string_read(&v, &o) != 0 || o.overflow || o.has_nul) {
		out[0] = '\0';
		return -1;
	}
	out[o.len] = '\0';
	return 1;
}

int
json_number(const char *text, size_t len, const char *key, double *out, bool *is_null)
{
	char number[JSON_MAX_NUMBER_CHARS + 8];
	const char *point = localeconv()->decimal_point;
	struct json_reader v;
	size_t start, n = 0;
	int found;

	*out = 0;
	found = json_find_nullable(text, len, key, &v, is_null);
	if (found != 1)
		return found == 2 ? 1 : found;
	start = v.at;
	if (v.p[v.at] != '-' && !is_digit(v.p[v.at]))
		return -1;
	if (json_number_read(&v) != 0 || v.at - start > JSON_MAX_NUMBER_CHARS)
		return -1;
	/* strtod reads the locale's decimal point, which need not be '.'. */
	for (size_t i = start; i < v.at; i++) {
		if (v.p[i] == '.' && strlen(point) <= 4) {
			memcpy(number + n, point, strlen(point));
			n += strlen(point);
		} else {
			number[n++] = (char)v.p[i];
		}
	}
	number[n] = '\0';
	*out = strtod(number, NULL);
	return 1;
}

int
json_bool(const char *text, size_t len, const char *key, bool *out)
{
	struct json_reader v;
	int found;

	*out = false;
	found = json_find(text, len, key, &v);
	if (found != 1)
		return found;
	if (json_word(&v, "true") == 0)
		*out = true;
	else if (json_word(&v, "false") != 0)
		return -1;
	return 1;
}
