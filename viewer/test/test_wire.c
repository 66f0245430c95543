/*
 * test_wire.c -- buf.c, json.c and wire.c: the capped buffer, the JSON field
 * reader (on every prefix of its texts too: none may read past len), SHA-1
 * and base64 on known vectors, the WebSocket reader fed at every split of
 * its bytes, masked sends unmasked again, and the HTTP GET and the
 * WebSocket handshake against a small server forked here, on a real unix
 * socket, answering fixed bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "viewer.h"

/* How long a test waits for its forked server (it answers in microseconds). */
#define WAIT_MS 5000

/* ------------------------------------------------------------------- buf */

static void
test_buf_cap(void)
{
	struct buf b;

	buf_init(&b, 10);
	CHECK(buf_append(&b, "abcdef", 6) == 0);
	CHECK(buf_append(&b, "ghijk", 5) == -1);
	CHECK(b.len == 6);
	CHECK(buf_append(&b, "ghij", 4) == 0);
	CHECK(b.len == 10 && memcmp(b.data, "abcdefghij", 10) == 0);
	CHECK(buf_append(&b, "k", 1) == -1);
	CHECK(buf_append(&b, "", 0) == 0);
	CHECK(b.alloc <= b.cap);
	buf_consume(&b, 4);
	CHECK(b.len == 6 && memcmp(b.data, "efghij", 6) == 0);
	/* A printf that does not fit appends nothing; one that fills the cap exactly fits. */
	CHECK(buf_printf(&b, "%d", 12345) == -1);
	CHECK(b.len == 6);
	CHECK(buf_printf(&b, "%d", 1234) == 0);
	CHECK(b.len == 10 && memcmp(b.data, "efghij1234", 10) == 0);
	buf_clear(&b);
	CHECK(b.len == 0);
	CHECK(buf_reserve(&b, 10) == 0 && b.alloc >= 10);
	CHECK(buf_reserve(&b, 11) == -1);
	buf_free(&b);

	/* Long formats go through the heap, and a byte at a time grows linearly. */
	buf_init(&b, 1 << 20);
	CHECK(buf_printf(&b, "%0600d|%s", 7, "end") == 0);
	CHECK(b.len == 604 && memcmp(b.data + 600, "|end", 4) == 0);
	for (int i = 0; i < 100000; i++)
		buf_append(&b, "x", 1);
	CHECK(b.len == 100604);
	CHECK(buf_appends(&b, "tail") == 0 && memcmp(b.data + b.len - 4, "tail", 4) == 0);
	buf_free(&b);
}

/* ------------------------------------------------------------------ json */

/* The text in a heap block of exactly its length: a read past len is caught by ASan. */
static char *
exact(const char *text, size_t len)
{
	char *p = malloc(len > 0 ? len : 1);

	memcpy(p, text, len);
	return p;
}

static int
jstr(const char *text, const char *key, char *out, size_t outlen, bool *is_null)
{
	size_t len = strlen(text);
	char *p = exact(text, len);
	int rc = json_string(p, len, key, out, outlen, is_null);

	free(p);
	return rc;
}

static int
jnum(const char *text, const char *key, double *out, bool *is_null)
{
	size_t len = strlen(text);
	char *p = exact(text, len);
	int rc = json_number(p, len, key, out, is_null);

	free(p);
	return rc;
}

static int
jbool(const char *text, const char *key, bool *out)
{
	size_t len = strlen(text);
	char *p = exact(text, len);
	int rc = json_bool(p, len, key, out);

	free(p);
	return rc;
}

static void
test_json_fields(void)
{
	const char *lock = "{\"pid\":4242,\"socket\":\"/run/tend/server.sock\",\"version\":\"0.9.1\"}";
	const char *nested = "{\"a\":{\"pid\":1,\"s\":\"}]\\\"\",\"b\":[1,[2,{\"c\":[]}],\"]\"]},"
	    "\"list\":[],\"obj\":{},\"pid\":2,\"socket\":\"x\"}";
	char out[64];
	double d;
	bool null, b;

	CHECK(jnum(lock, "pid", &d, NULL) == 1 && d == 4242);
	CHECK(jstr(lock, "socket", out, sizeof out, NULL) == 1 && strcmp(out, "/run/tend/server.sock") == 0);
	CHECK(jstr(lock, "version", out, sizeof out, NULL) == 1 && strcmp(out, "0.9.1") == 0);
	CHECK(jstr(lock, "missing", out, sizeof out, NULL) == 0);
	/* Nested values are stepped over, and their keys are not the top level's. */
	CHECK(jnum(nested, "pid", &d, NULL) == 1 && d == 2);
	CHECK(jstr(nested, "socket", out, sizeof out, NULL) == 1 && strcmp(out, "x") == 0);
	CHECK(jstr(nested, "c", out, sizeof out, NULL) == 0);
	/* Another type is an error, not a miss. */
	CHECK(jstr(nested, "pid", out, sizeof out, NULL) == -1);
	CHECK(jnum(nested, "socket", &d, NULL) == -1);
	CHECK(jnum(nested, "a", &d, NULL) == -1);
	CHECK(jbool(nested, "list", &b) == -1);
	/* The last of a repeated key counts, as with JSON.parse. */
	CHECK(jnum("{\"n\":1,\"n\":3}", "n", &d, NULL) == 1 && d == 3);
	/* A key written with escapes is still that key. */
	CHECK(jnum("{\"p\\u0069d\":5}", "pid", &d, NULL) == 1 && d == 5);
	CHECK(jnum("{}", "pid", &d, NULL) == 0);
	/* Whitespace wherever JSON allows it. */
	CHECK(jnum(" \n\t{ \"a\" :\r\n [ 1 , { } ] ,\t\"b\" : -7 } \n", "b", &d, NULL) == 1 && d == -7);

	/* null */
	CHECK(jstr("{\"name\":null}", "name", out, sizeof out, &null) == 1 && null && out[0] == '\0');
	CHECK(jstr("{\"name\":null}", "name", out, sizeof out, NULL) == 1 && out[0] == '\0');
	CHECK(jstr("{\"name\":\"n\"}", "name", out, sizeof out, &null) == 1 && !null);
	CHECK(jnum("{\"code\":null}", "code", &d, &null) == 1 && null);
	CHECK(jbool("{\"b\":null}", "b", &b) == -1);

	/* numbers */
	CHECK(jnum("{\"n\":0}", "n", &d, &null) == 1 && d == 0 && !null);
	CHECK(jnum("{\"n\":-1.5e3}", "n", &d, NULL) == 1 && d == -1500);
	CHECK(jnum("{\"n\":1E+2}", "n", &d, NULL) == 1 && d == 100);
	CHECK(jnum("{\"n\":0.25}", "n", &d, NULL) == 1 && d == 0.25);
	CHECK(jnum("{\"n\":9007199254740991}", "n", &d, NULL) == 1 && d == 9007199254740991.0);
	CHECK(jnum("{\"n\":2.5e-3}", "n", &d, NULL) == 1 && d > 0.0024999 && d < 0.0025001);

	/* booleans */
	CHECK(jbool("{\"ro\":true}", "ro", &b) == 1 && b);
	CHECK(jbool("{\"ro\":false}", "ro", &b) == 1 && !b);
	CHECK(jbool("{\"ro\":1}", "ro", &b) == -1);
	CHECK(jbool("{\"x\":true}", "ro", &b) == 0);
}

static void
test_json_strings(void)
{
	char out[64];

	CHECK(jstr("{\"s\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"}", "s", out, sizeof out, NULL) == 1 &&
	    strcmp(out, "\"\\/\b\f\n\r\t") == 0);
	CHECK(jstr("{\"s\":\"caf\\u00e9 \\u20AC\"}", "s", out, sizeof out, NULL) == 1 &&
	    strcmp(out, "caf\xc3\xa9 \xe2\x82\xac") == 0);
	/* A surrogate pair is one character of four bytes. */
	CHECK(jstr("{\"s\":\"\\ud83d\\ude00!\"}", "s", out, sizeof out, NULL) == 1 &&
	    strcmp(out, "\xf0\x9f\x98\x80!") == 0);
	/* Lone halves become U+FFFD, as Node writes them. */
	CHECK(jstr("{\"s\":\"\\ud800x\"}", "s", out, sizeof out, NULL) == 1 && strcmp(out, "\xef\xbf\xbdx") == 0);
	CHECK(jstr("{\"s\":\"\\udc00\"}", "s", out, sizeof out, NULL) == 1 && strcmp(out, "\xef\xbf\xbd") == 0);
	CHECK(jstr("{\"s\":\"\\ud800\\u0041\"}", "s", out, sizeof out, NULL) == 1 && strcmp(out, "\xef\xbf\xbd" "A") == 0);
	CHECK(jstr("{\"s\":\"\\ud800\\ud83d\\ude00\"}", "s", out, sizeof out, NULL) == 1 &&
	    strcmp(out, "\xef\xbf\xbd\xf0\x9f\x98\x80") == 0);
	/* UTF-8 passes through as it is. */
	CHECK(jstr("{\"s\":\"\xe6\x97\xa5\"}", "s", out, sizeof out, NULL) == 1 && strcmp(out, "\xe6\x97\xa5") == 0);
	/* U+0000 cannot live in a C string. */
	CHECK(jstr("{\"s\":\"a\\u0000b\"}", "s", out, sizeof out, NULL) == -1);
	/* Bounded: outlen counts the NUL. */
	CHECK(jstr("{\"s\":\"abcd\"}", "s", out, 5, NULL) == 1 && strcmp(out, "abcd") == 0);
	CHECK(jstr("{\"s\":\"abcde\"}", "s", out, 5, NULL) == -1);
	CHECK(jstr("{\"s\":\"\\u20ac\"}", "s", out, 3, NULL) == -1);
	CHECK(jstr("{\"s\":\"\"}", "s", out, 1, NULL) == 1 && out[0] == '\0');
	/* A long key is stepped over, not an error. */
	{
		char text[400];

		snprintf(text, sizeof text, "{\"%0300d\":1,\"s\":\"ok\"}", 0);
		CHECK(jstr(text, "s", out, sizeof out, NULL) == 1 && strcmp(out, "ok") == 0);
	}
}

static void
test_json_malformed(void)
{
	static const char *bad[] = {
		"", " ", "[1]", "\"s\"", "1", "null", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\" 1}",
		"{a:1}", "{\"a\":1,}", "{\"a\":1 \"b\":2}", "{\"a\":[1,]}", "{\"a\":[1 2]}",
		"{\"a\":{\"b\":1,}}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":+1}",
		"{\"a\":-}", "{\"a\":1e}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":\"x\\q\"}",
		"{\"a\":\"\\u12g4\"}", "{\"a\":\"tab\there\"}", "{\"a\":\"nl\nx\"}", "{} x", "{}{}",
		"{\"a\":1}]", "{\"a\":'x'}", "{\"a\":[}", "{\"a\":{]}",
	};
	char out[32], deep[2 * 300 + 16];
	double d;
	size_t n = 0;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = jstr(bad[i], "a", out, sizeof out, NULL);

		if (rc != -1)
			fprintf(stderr, "json accepted: %s\n", bad[i]);
		CHECK(rc == -1);
	}
	/* A NUL byte inside the text is not JSON either. */
	CHECK(json_number("{\"a\":1}\0", 8, "a", &d, NULL) == -1);
	/* Nesting: a few levels are fine, hundreds are refused rather than recursed into. */
	CHECK(jnum("{\"a\":[[[[{\"b\":[[[]]]}]]]],\"n\":1}", "n", &d, NULL) == 1 && d == 1);
	n += (size_t)snprintf(deep, sizeof deep, "{\"a\":");
	for (int i = 0; i < 300; i++)
		deep[n++] = '[';
	for (int i = 0; i < 300; i++)
		deep[n++] = ']';
	deep[n++] = '}';
	deep[n] = '\0';
	CHECK(jnum(deep, "a", &d, NULL) == -1);
}

/* Every prefix of a well-formed object is refused (and read only within its length). */
static void
test_json_truncated(void)
{
	const char *text = "{\"id\":\"s1\",\"name\":\"w\\u00e9b\\ud83d\\ude00\",\"size\":{\"cols\":80,\"rows\":24},"
	    "\"tags\":[\"a\",null,true,false,-1.5e-2],\"status\":\"running\",\"code\":null}";
	size_t len = strlen(text);
	char out[64];
	double d;
	int refused = 0;

	for (size_t cut = 0; cut < len; cut++) {
		char *p = exact(text, cut);

		refused += json_string(p, cut, "status", out, sizeof out, NULL) == -1;
		refused += json_number(p, cut, "code", &d, NULL) == -1;
		free(p);
	}
	CHECK(refused == (int)(2 * len));
	CHECK(jstr(text, "status", out, sizeof out, NULL) == 1 && strcmp(out, "running") == 0);
	CHECK(jstr(text, "name", out, sizeof out, NULL) == 1 && strcmp(out, "w\xc3\xa9" "b\xf0\x9f\x98\x80") == 0);
}

/* ------------------------------------------------------- SHA-1, base64 */

static void
hex(const uint8_t *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static bool
sha1_is(const void *p, size_t n, const char *expected)
{
	uint8_t digest[20];
	char text[41];

	wire_sha1(p, n, digest);
	hex(digest, sizeof digest, text);
	if (strcmp(text, expected) != 0)
		fprintf(stderr, "sha1 of %zu bytes: %s, expected %s\n", n, text, expected);
	return strcmp(text, expected) == 0;
}

static void
test_sha1_base64(void)
{
	static const struct { size_t n; const char *digest; } runs[] = {
		/* Lengths around the padding's boundaries: the length fits the last block or needs one more. */
		{ 55, "c1c8bbdc22796e28c0e15163d20899b65621d65a" },
		{ 56, "c2db330f6083854c99d4b5bfb6e8f29f201be699" },
		{ 63, "03f09f5b158a7a8cdad920bddc29b81c18a551f5" },
		{ 64, "0098ba824b5c16427bd7a1122a5a442a25ec644d" },
		{ 119, "ee971065aaa017e0632a8ca6c77bb3bf8b1dfc56" },
		{ 120, "f34c1488385346a55709ba056ddd08280dd4c6d6" },
		{ 1000000, "34aa973cd4c4daa4f61eeb2bdbad27316534016f" },
	};
	static const char *b64[][2] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
	};
	char *as = malloc(1000000), out[64], accept[29];
	uint8_t high[3] = { 0xfb, 0xff, 0xbf };

	CHECK(sha1_is("", 0, "da39a3ee5e6b4b0d3255bfef95601890afd80709"));
	CHECK(sha1_is("abc", 3, "a9993e364706816aba3e25717850c26c9cd0d89d"));
	CHECK(sha1_is("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
	    "84983e441c3bd26ebaae4aa1f95129e5e54670f1"));
	memset(as, 'a', 1000000);
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
		CHECK(sha1_is(as, runs[i].n, runs[i].digest));
	free(as);
	for (size_t i = 0; i < sizeof b64 / sizeof b64[0]; i++) {
		size_t n = wire_base64((const uint8_t *)b64[i][0], strlen(b64[i][0]), out);

		CHECK(n == strlen(b64[i][1]) && strcmp(out, b64[i][1]) == 0);
	}
	CHECK(wire_base64(high, 3, out) == 4 && strcmp(out, "+/+/") == 0);
	/* RFC 6455 §1.3's example. */
	ws_accept_for("dGhlIHNhbXBsZSBub25jZQ==", accept);
	CHECK(strcmp(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=") == 0);
}

/* ------------------------------------------------------ WebSocket reader */

/* A server's frame (unmasked); len_bytes forces the length's encoding (0: the shortest). */
static void
server_frame(struct buf *out, bool fin, uint8_t opcode, const void *payload, size_t len, int len_bytes)
{
	uint8_t head[10];
	size_t n = 2;

	if (len_bytes == 0)
		len_bytes = len < 126 ? 1 : len < 0x10000 ? 2 : 8;
	head[0] = (uint8_t)((fin ? 0x80 : 0) | opcode);
	if (len_bytes == 1) {
		head[1] = (uint8_t)len;
	} else if (len_bytes == 2) {
		head[1] = 126;
		head[2] = (uint8_t)(len >> 8);
		head[3] = (uint8_t)len;
		n = 4;
	} else {
		head[1] = 127;
		for (int i = 0; i < 8; i++)
			head[2 + i] = (uint8_t)((uint64_t)len >> (56 - 8 * i));
		n = 10;
	}
	buf_append(out, head, n);
	buf_append(out, payload, len);
}

/* Messages received: each as a 4-byte length and its bytes. */
struct received {
	struct buf all;
	int count;
	struct ws *close_on_message;	/* closes this ws from inside the callback */
};

static void
on_message(void *ctx, const uint8_t *data, size_t len)
{
	struct received *r = ctx;
	uint32_t n = (uint32_t)len;

	CHECK(data != NULL);
	buf_append(&r->all, &n, sizeof n);
	buf_append(&r->all, data, len);
	r->count++;
	if (r->close_on_message != NULL)
		ws_close(r->close_on_message);
}

static void
received_init(struct received *r)
{
	buf_init(&r->all, 1u << 30);
	r->count = 0;
	r->close_on_message = NULL;
}

/* One decoded client frame of ws->out at *at: its opcode and unmasked payload (into `payload`). */
static bool
client_frame(const struct buf *out, size_t *at, uint8_t *opcode, struct buf *payload, int *len_bytes)
{
	const uint8_t *p = out->data + *at;
	size_t avail = out->len - *at, head = 2;
	uint64_t len;

	if (avail < 2 || (p[0] & 0xf0) != 0x80 || (p[1] & 0x80) == 0)
		return false;
	*opcode = p[0] & 0x0f;
	len = p[1] & 0x7f;
	*len_bytes = 1;
	if (len == 126) {
		len = (uint64_t)p[2] << 8 | p[3];
		head = 4;
		*len_bytes = 2;
	} else if (len == 127) {
		len = 0;
		for (int i = 0; i < 8; i++)
			len = len << 8 | p[2 + i];
		head = 10;
		*len_bytes = 8;
	}
	if (avail < head + 4 + len)
		return false;
	buf_clear(payload);
	for (uint64_t i = 0; i < len; i++) {
		uint8_t c = p[head + 4 + i] ^ p[head + (i & 3)];

		buf_append(payload, &c, 1);
	}
	*at += head + 4 + len;
	return true;
}

/* Feeds `stream` cut at `cut` (and, with cut == SIZE_MAX, one byte at a time). */
static int
feed_split(struct ws *ws, const struct buf *stream, size_t cut, struct received *r, char *err, size_t errlen)
{
	if (cut == SIZE_MAX) {
		for (size_t i = 0; i < stream->len; i++) {
			if (ws_feed(ws, stream->data + i, 1, on_message, r, err, errlen) != 0)
				return -1;
		}
		return 0;
	}
	if (ws_feed(ws, stream->data, cut, on_message, r, err, errlen) != 0)
		return -1;
	return ws_feed(ws, stream->data + cut, stream->len - cut, on_message, r, err, errlen);
}

static void
test_ws_feed_splits(void)
{
	struct buf stream, expected, pong;
	uint8_t big[300];
	char err[256];
	int bad = 0;

	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (uint8_t)(i * 7);
	buf_init(&stream, 1 << 20);
	buf_init(&expected, 1 << 20);
	buf_init(&pong, 1 << 10);
	server_frame(&stream, true, 2, "hi", 2, 0);
	server_frame(&stream, true, 2, big, sizeof big, 0);
	/* A message in three frames, a ping between them, one fragment empty. */
	server_frame(&stream, false, 2, "abc", 3, 0);
	server_frame(&stream, true, 9, "p1", 2, 0);
	server_frame(&stream, false, 0, "", 0, 0);
	server_frame(&stream, true, 0, "def", 3, 0);
	server_frame(&stream, true, 10, "ignored", 7, 0);
	server_frame(&stream, true, 2, "", 0, 0);
	/* A length longer-encoded than it needs is still that length. */
	server_frame(&stream, true, 2, "wide", 4, 8);
	server_frame(&stream, true, 2, "mid", 3, 2);
	{
		static const char *msgs[] = { "hi", NULL, "abcdef", "", "wide", "mid" };

		for (size_t i = 0; i < sizeof msgs / sizeof msgs[0]; i++) {
			uint32_t n = msgs[i] != NULL ? (uint32_t)strlen(msgs[i]) : (uint32_t)sizeof big;

			buf_append(&expected, &n, sizeof n);
			buf_append(&expected, msgs[i] != NULL ? (const void *)msgs[i] : (const void *)big, n);
		}
	}
	for (size_t cut = 0; cut <= stream.len + 1; cut++) {
		size_t split = cut == stream.len + 1 ? SIZE_MAX : cut, at = 0;
		struct received r;
		struct ws ws;
		uint8_t op = 0;
		int len_bytes;

		ws_init(&ws);
		received_init(&r);
		if (feed_split(&ws, &stream, split, &r, err, sizeof err) != 0 || r.count != 6 ||
		    r.all.len != expected.len || memcmp(r.all.data, expected.data, expected.len) != 0)
			bad++;
		/* The ping's pong is queued, masked, with the ping's payload, and nothing else. */
		else if (!client_frame(&ws.out, &at, &op, &pong, &len_bytes) || op != 10 || pong.len != 2 ||
		    memcmp(pong.data, "p1", 2) != 0 || at != ws.out.len)
			bad++;
		buf_free(&r.all);
		ws_close(&ws);
	}
	CHECK(bad == 0);
	buf_free(&stream);
	buf_free(&expected);
	buf_free(&pong);
}

static void
test_ws_feed_large(void)
{
	size_t sizes[] = { 65535, 65536, 70000 };
	struct buf stream;
	char err[256];

	buf_init(&stream, 1 << 20);
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		uint8_t *payload = malloc(sizes[s]);
		size_t cuts[] = { SIZE_MAX, 1, 5, 9, 10, 11, 4096, sizes[s] / 2, sizes[s] + 9 };

		for (size_t i = 0; i < sizes[s]; i++)
			payload[i] = (uint8_t)(i ^ (i >> 8));
		buf_clear(&stream);
		server_frame(&stream, true, 2, payload, sizes[s], 0);
		for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
			struct received r;
			struct ws ws;

			if (cuts[c] != SIZE_MAX && cuts[c] > stream.len)
				cuts[c] = stream.len;
			ws_init(&ws);
			received_init(&r);
			CHECK(feed_split(&ws, &stream, cuts[c], &r, err, sizeof err) == 0);
			CHECK(r.count == 1 && r.all.len == 4 + sizes[s] && memcmp(r.all.data + 4, payload, sizes[s]) == 0);
			buf_free(&r.all);
			ws_close(&ws);
		}
		free(payload);
	}
	buf_free(&stream);
}

/* Feeds `stream` whole to a fresh ws; the rc, err kept. */
static int
feed_once(const struct buf *stream, struct received *r, char *err, size_t errlen, struct ws *ws)
{
	ws_init(ws);
	received_init(r);
	return ws_feed(ws, stream->data, stream->len, on_message, r, err, errlen);
}

static void
test_ws_feed_refusals(void)
{
	struct buf s;
	struct received r;
	struct ws ws;
	char err[256];
	uint8_t head[10], close_payload[64];

	buf_init(&s, 1 << 20);

	/* Text is refused. */
	server_frame(&s, true, 1, "{}", 2, 0);
	CHECK(feed_once(&s, &r, err, sizeof err, &ws) == -1 && strstr(err, "text") != NULL && r.count == 0);
	ws_close(&ws);
	buf_free(&r.all);

	/* A message over the limit is refused on its header alone, nothing allocated for it. */
	head[0] = 0x82;
	head[1] = 127;
	for (int i = 0; i < 8; i++)
		head[2 + i] = (uint8_t)((uint64_t)(WIRE_MAX_MESSAGE_BYTES + 1u) >> (56 - 8 * i));
	ws_init(&ws);
	received_init(&r);
	CHECK(ws_feed(&ws, head, 10, on_message, &r, err, sizeof err) == -1);
	CHECK(strstr(err, "over 33554432 bytes") != NULL);
	CHECK(ws.msg.alloc == 0 && ws.msg.data == NULL);
	/* The connection is over after an error. */
	CHECK(ws_feed(&ws, (const uint8_t *)"\x82\x00", 2, on_message, &r, err, sizeof err) == -1 && r.count == 0);
	ws_close(&ws);
	buf_free(&r.all);

	/* The limit is the whole message's, over its fragments. */
	{
		size_t first = WIRE_MAX_MESSAGE_BYTES - 10;
		uint8_t *big = calloc(1, first);

		buf_free(&s);
		buf_init(&s, WIRE_MAX_MESSAGE_BYTES);
		server_frame(&s, false, 2, big, first, 0);
		free(big);
		CHECK(feed_once(&s, &r, err, sizeof err, &ws) == 0 && ws.msg.len == first);
		buf_clear(&s);
		server_frame(&s, true, 0, "0123456789a", 11, 0);
		CHECK(ws_feed(&ws, s.data, 4, on_message, &r, err, sizeof err) == -1 && strstr(err, "over") != NULL);
		CHECK(r.count == 0);
		ws_close(&ws);
		buf_free(&r.all);
		buf_free(&s);
		buf_init(&s, 1 << 20);
	}

	/* A length with its top bit set. */
	memcpy(head, "\x82\x7f\x80\0\0\0\0\0\0\x01", 10);
	ws_init(&ws);
	received_init(&r);
	CHECK(ws_feed(&ws, head, 10, on_message, &r, err, sizeof err) == -1);
	ws_close(&ws);
	buf_free(&r.all);

	{
		static const struct { const char *bytes; size_t n; const char *why; } cases[] = {
			{ "\x82\x81\x01\x02\x03\x04x", 7, "masked" },
			{ "\xc2\x00", 2, "reserved" },
			{ "\x92\x00", 2, "reserved" },
			{ "\x09\x00", 2, "control" },		/* a ping without FIN */
			{ "\x89\x7e\x00\x7e", 4, "control" },	/* a ping of 126 bytes */
			{ "\x80\x01x", 3, "not begun" },
			{ "\x02\x01x\x82\x01y", 6, "inside another" },
			{ "\x83\x00", 2, "opcode 3" },
			{ "\x8b\x00", 2, "opcode 11" },
		};

		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			ws_init(&ws);
			received_init(&r);
			err[0] = '\0';
			CHECK(ws_feed(&ws, (const uint8_t *)cases[i].bytes, cases[i].n, on_message, &r, err, sizeof err) == -1);
			if (strstr(err, cases[i].why) == NULL)
				fprintf(stderr, "ws case %zu: \"%s\" lacks \"%s\"\n", i, err, cases[i].why);
			CHECK(strstr(err, cases[i].why) != NULL);
			CHECK(r.count == 0);
			ws_close(&ws);
			buf_free(&r.all);
		}
	}

	/* A close: its reason is the error, or its code when it has no reason. */
	buf_clear(&s);
	server_frame(&s, true, 2, "before", 6, 0);
	close_payload[0] = 1001 >> 8;
	close_payload[1] = 1001 & 0xff;
	memcpy(close_payload + 2, "the tend server is stopping", 27);
	server_frame(&s, true, 8, close_payload, 29, 0);
	server_frame(&s, true, 2, "after", 5, 0);
	CHECK(feed_once(&s, &r, err, sizeof err, &ws) == -1);
	CHECK(strcmp(err, "the tend server is stopping") == 0);
	CHECK(r.count == 1 && ws.closed);
	ws_close(&ws);
	buf_free(&r.all);
	buf_clear(&s);
	server_frame(&s, true, 8, close_payload, 2, 0);
	CHECK(feed_once(&s, &r, err, sizeof err, &ws) == -1 && strcmp(err, "socket closed (1001)") == 0);
	ws_close(&ws);
	buf_free(&r.all);
	buf_clear(&s);
	server_frame(&s, true, 8, "", 0, 0);
	CHECK(feed_once(&s, &r, err, sizeof err, &ws) == -1 && strcmp(err, "socket closed") == 0);
	ws_close(&ws);
	buf_free(&r.all);

	/* A callback that closes the connection stops the feed. */
	buf_clear(&s);
	server_frame(&s, true, 2, "one", 3, 0);
	server_frame(&s, true, 2, "two", 3, 0);
	ws_init(&ws);
	received_init(&r);
	r.close_on_message = &ws;
	CHECK(ws_feed(&ws, s.data, s.len, on_message, &r, err, sizeof err) == -1 && r.count == 1);
	ws_close(&ws);
	buf_free(&r.all);
	buf_free(&s);
}

/* ------------------------------------------------------- WebSocket sends */

static void
test_ws_send(void)
{
	size_t sizes[] = { 0, 1, 125, 126, 65535, 65536, 100000 };
	int expected_len_bytes[] = { 1, 1, 1, 2, 2, 8, 8 };
	struct buf payload;
	struct ws ws;
	uint8_t first_mask[4];

	buf_init(&payload, 1 << 20);
	ws_init(&ws);
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
		uint8_t *data = malloc(sizes[s] + 1), op = 0;
		size_t at = 0, head;
		int len_bytes = 0;

		for (size_t i = 0; i < sizes[s]; i++)
			data[i] = (uint8_t)(i * 31 + s);
		buf_clear(&ws.out);
		CHECK(ws_send(&ws, data, sizes[s]) == 0);
		head = expected_len_bytes[s] == 1 ? 2 : expected_len_bytes[s] == 2 ? 4 : 10;
		CHECK(ws.out.len == head + 4 + sizes[s]);
		CHECK(ws.out.data[0] == 0x82);
		CHECK(client_frame(&ws.out, &at, &op, &payload, &len_bytes) && at == ws.out.len);
		CHECK(op == 2 && len_bytes == expected_len_bytes[s]);
		CHECK(payload.len == sizes[s] && (sizes[s] == 0 || memcmp(payload.data, data, sizes[s]) == 0));
		if (s == 0)
			memcpy(first_mask, ws.out.data + 2, 4);
		free(data);
	}
	/* A fresh mask each frame (the same four bytes twice: one chance in 2^32). */
	buf_clear(&ws.out);
	CHECK(ws_send(&ws, (const uint8_t *)"x", 1) == 0);
	CHECK(memcmp(first_mask, ws.out.data + 2, 4) != 0);
	/* Over the queue's cap: refused whole. */
	ws.out.cap = ws.out.len + 10;
	CHECK(ws_send(&ws, (const uint8_t *)"0123456789", 10) == -1);
	CHECK(ws.out.len == 7);
	ws_close(&ws);
	buf_free(&payload);
}

/* Frames written to a socketpair as far as it takes, the rest kept, a dead peer an error. */
static void
test_ws_flush_read(void)
{
	int sv[2];
	struct ws ws;
	struct received r;
	struct buf big, got, payload, frames;
	char err[256];
	size_t at = 0;
	uint8_t op;
	int len_bytes, flushes = 0;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	ws_init(&ws);
	ws.fd = sv[0];
	fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	buf_init(&big, 8 << 20);
	buf_init(&got, 64 << 20);
	buf_init(&payload, 8 << 20);
	for (size_t i = 0; i < (4u << 20); i++)
		buf_append(&big, &(uint8_t){ (uint8_t)(i * 13) }, 1);
	CHECK(ws_send(&ws, big.data, big.len) == 0);
	CHECK(ws_send(&ws, (const uint8_t *)"end", 3) == 0);
	/* A socket buffer is far below 4 MiB: the first flush stops at EAGAIN and keeps the rest. */
	CHECK(ws_flush(&ws, err, sizeof err) == 0 && ws.out.len > 0);
	while (ws.out.len > 0 || flushes == 0) {
		uint8_t chunk[65536];
		ssize_t n = read(sv[1], chunk, sizeof chunk);

		if (n > 0)
			buf_append(&got, chunk, (size_t)n);
		CHECK(ws_flush(&ws, err, sizeof err) == 0);
		flushes++;
	}
	for (;;) {
		uint8_t chunk[65536];
		struct pollfd pfd = { .fd = sv[1], .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 0) != 1)
			break;
		n = read(sv[1], chunk, sizeof chunk);
		if (n <= 0)
			break;
		buf_append(&got, chunk, (size_t)n);
	}
	CHECK(client_frame(&got, &at, &op, &payload, &len_bytes) && op == 2 && payload.len == big.len &&
	    memcmp(payload.data, big.data, big.len) == 0);
	CHECK(client_frame(&got, &at, &op, &payload, &len_bytes) && payload.len == 3 &&
	    memcmp(payload.data, "end", 3) == 0 && at == got.len);

	/* ws_read: what the server writes, in one read or several; a ping answered in the queue. */
	buf_init(&frames, 1 << 20);
	server_frame(&frames, true, 2, "one", 3, 0);
	server_frame(&frames, true, 9, "pp", 2, 0);
	server_frame(&frames, true, 2, big.data, 200000, 0);
	received_init(&r);
	fcntl(sv[1], F_SETFL, fcntl(sv[1], F_GETFL) | O_NONBLOCK);
	{
		size_t written = 0;

		while (written < frames.len) {
			ssize_t n = write(sv[1], frames.data + written, frames.len - written);

			if (n > 0)
				written += (size_t)n;
			CHECK(ws_read(&ws, on_message, &r, err, sizeof err) == 0);
		}
		CHECK(ws_read(&ws, on_message, &r, err, sizeof err) == 0);
	}
	CHECK(r.count == 2 && r.all.len == 4 + 3 + 4 + 200000);
	CHECK(memcmp(r.all.data + 4, "one", 3) == 0 && memcmp(r.all.data + 11, big.data, 200000) == 0);
	at = 0;
	CHECK(client_frame(&ws.out, &at, &op, &payload, &len_bytes) && op == 10 && payload.len == 2);
	/* The peer gone: reading says so, writing fails (no SIGPIPE). */
	close(sv[1]);
	CHECK(ws_read(&ws, on_message, &r, err, sizeof err) == -1 && strcmp(err, "the server closed the connection") == 0);
	CHECK(ws_send(&ws, (const uint8_t *)"late", 4) == 0);
	CHECK(ws_flush(&ws, err, sizeof err) == -1 && strstr(err, "broke") != NULL);
	ws_close(&ws);
	ws_close(&ws);	/* twice is harmless */
	buf_free(&r.all);
	buf_free(&frames);
	buf_free(&big);
	buf_free(&got);
	buf_free(&payload);
}

/* ------------------------------------------- a tiny server, forked */

enum answer {
	ANSWER_LENGTH,		/* 200 with a Content-Length body */
	ANSWER_CHUNKED,		/* 200 chunked, written a byte at a time */
	ANSWER_UNTIL_CLOSE,	/* HTTP/1.0, no length: the body ends with the connection */
	ANSWER_404,
	ANSWER_TOO_LONG,	/* a 10-byte body for a 4-byte cap */
	ANSWER_NOT_HTTP,
	ANSWER_NOTHING,		/* reads the request and says nothing */
	ANSWER_CLOSE,		/* closes without a reply */
	ANSWER_SHORT_BODY,	/* announces 10 bytes, sends 3, closes */
	ANSWER_WS,		/* 101 done right, a frame in the same write, then echoes one frame */
	ANSWER_WS_BAD_ACCEPT,
	ANSWER_WS_EXTENSION,
	ANSWER_WS_404,
};

static char test_dir[256];
static int socket_counter;

static void
write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n > 0) {
		ssize_t w = write(fd, b, n);

		if (w <= 0)
			return;
		b += w;
		n -= (size_t)w;
	}
}

/* The request's head, read up to its blank line. */
static size_t
read_request(int fd, char *req, size_t cap)
{
	size_t n = 0;

	while (n + 1 < cap) {
		ssize_t r = read(fd, req + n, 1);

		if (r <= 0)
			break;
		n++;
		if (n >= 4 && memcmp(req + n - 4, "\r\n\r\n", 4) == 0)
			break;
	}
	req[n] = '\0';
	return n;
}

/* The child's side of ANSWER_WS: one masked client frame in, the same payload back unmasked. */
static void
echo_one_frame(int fd)
{
	uint8_t head[2], mask[4], payload[125], reply[127];
	size_t len;

	if (read(fd, head, 2) != 2 || (head[1] & 0x7f) >= 126 || read(fd, mask, 4) != 4)
		return;
	len = head[1] & 0x7f;
	for (size_t got = 0; got < len;) {
		ssize_t r = read(fd, payload + got, len - got);

		if (r <= 0)
			return;
		got += (size_t)r;
	}
	reply[0] = 0x82;
	reply[1] = (uint8_t)len;
	for (size_t i = 0; i < len; i++)
		reply[2 + i] = payload[i] ^ mask[i & 3];
	write_all(fd, reply, 2 + len);
}

static void
answer_ws(int fd, const char *req, enum answer how)
{
	const char *key = strstr(req, "Sec-WebSocket-Key: ");
	char accept[29], reply[512], keytext[64] = "";
	int n;

	if (key != NULL)
		sscanf(key + 19, "%63[^\r]", keytext);
	ws_accept_for(keytext, accept);
	if (how == ANSWER_WS_BAD_ACCEPT)
		accept[3] ^= 1;
	/* The request as the TypeScript client sends it, else a 400 fails the test. */
	if (strncmp(req, "GET /v1/viewer HTTP/1.1\r\n", 25) != 0 || strstr(req, "\r\nHost: localhost\r\n") == NULL ||
	    strstr(req, "\r\nUpgrade: websocket\r\n") == NULL || strstr(req, "\r\nConnection: Upgrade\r\n") == NULL ||
	    strstr(req, "\r\nSec-WebSocket-Version: 13\r\n") == NULL || strlen(keytext) != 24) {
		write_all(fd, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", 47);
		return;
	}
	if (how == ANSWER_WS_404) {
		const char *r = "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\n"
		    "Content-Length: 28\r\nConnection: close\r\n\r\nno WebSocket endpoint at /x\n";

		write_all(fd, r, strlen(r));
		return;
	}
	n = snprintf(reply, sizeof reply, "HTTP/1.1 101 Switching Protocols\r\nupgrade: WebSocket\r\n"
	    "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n%s\r\n", accept,
	    how == ANSWER_WS_EXTENSION ? "Sec-WebSocket-Extensions: permessage-deflate\r\n" : "");
	/* A first frame in the same write as the answer. */
	memcpy(reply + n, "\x82\x05" "early", 7);
	write_all(fd, reply, (size_t)n + 7);
	if (how == ANSWER_WS)
		echo_one_frame(fd);
}

static void
answer(int fd, enum answer how)
{
	char req[4096];
	const char *r = NULL;

	read_request(fd, req, sizeof req);
	switch (how) {
	case ANSWER_LENGTH:
		if (strcmp(req, "GET /v1/sessions/a%20b HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n") != 0)
			r = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
		else
			r = "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n"
			    "content-length: 20\r\n\r\n{\"status\":\"running\"}";
		break;
	case ANSWER_CHUNKED:
		r = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n7;ext=1\r\n, world\r\n"
		    "a\r\n and more\n\r\n0\r\nX-Trailer: 1\r\n\r\n";
		for (const char *c = r; *c; c++)
			write_all(fd, c, 1);
		r = NULL;
		break;
	case ANSWER_UNTIL_CLOSE:
		r = "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end";
		break;
	case ANSWER_404:
		r = "HTTP/1.1 404 Not Found\r\nContent-Length: 36\r\n\r\n{\"error\":{\"code\":\"NO_SUCH_SESSION\"}}";
		break;
	case ANSWER_TOO_LONG:
		r = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789";
		break;
	case ANSWER_NOT_HTTP:
		r = "SSH-2.0-OpenSSH\r\n\r\n";
		break;
	case ANSWER_SHORT_BODY:
		r = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc";
		break;
	case ANSWER_NOTHING:
		break;
	case ANSWER_CLOSE:
		return;
	default:
		answer_ws(fd, req, how);
		return;
	}
	if (r != NULL)
		write_all(fd, r, strlen(r));
}

/* A server on a fresh socket answering one connection; its pid, the socket's path in `path`. */
static pid_t
serve_once(enum answer how, char *path, size_t pathlen)
{
	struct sockaddr_un addr;
	int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	pid_t pid;

	snprintf(path, pathlen, "%s/s%d.sock", test_dir, socket_counter++);
	memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(lfd, 4) != 0) {
		perror("test server");
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		int fd = accept(lfd, NULL, NULL);
		char drain[4096];

		close(lfd);
		if (fd < 0)
			_exit(1);
		answer(fd, how);
		if (how == ANSWER_CLOSE || how == ANSWER_UNTIL_CLOSE || how == ANSWER_SHORT_BODY) {
			close(fd);
			_exit(0);
		}
		/* Stays until the client hangs up. */
		while (read(fd, drain, sizeof drain) > 0)
			;
		_exit(0);
	}
	close(lfd);
	return pid;
}

static void
server_done(pid_t pid, const char *path)
{
	int status;

	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	unlink(path);
}

static int
get(enum answer how, const char *url, int timeout_ms, int *status, struct buf *body, char *err, size_t errlen)
{
	char path[300];
	pid_t pid = serve_once(how, path, sizeof path);
	int rc = http_get(path, url, timeout_ms, status, body, err, errlen);

	server_done(pid, path);
	return rc;
}

static void
test_http_get(void)
{
	struct buf body;
	char err[256], path[300];
	int status;

	buf_init(&body, 1 << 16);
	CHECK(get(ANSWER_LENGTH, "/v1/sessions/a%20b", WAIT_MS, &status, &body, err, sizeof err) == 0);
	CHECK(status == 200 && body.len == 20 && memcmp(body.data, "{\"status\":\"running\"}", 20) == 0);
	CHECK(get(ANSWER_CHUNKED, "/x", WAIT_MS, &status, &body, err, sizeof err) == 0);
	CHECK(status == 200 && body.len == 22 && memcmp(body.data, "hello, world and more\n", 22) == 0);
	CHECK(get(ANSWER_UNTIL_CLOSE, "/x", WAIT_MS, &status, &body, err, sizeof err) == 0);
	CHECK(status == 200 && body.len == 13 && memcmp(body.data, "until the end", 13) == 0);
	/* An error status is a reply like any other. */
	CHECK(get(ANSWER_404, "/x", WAIT_MS, &status, &body, err, sizeof err) == 0);
	CHECK(status == 404 && body.len == 36);
	CHECK(get(ANSWER_NOT_HTTP, "/x", WAIT_MS, &status, &body, err, sizeof err) == -1);
	CHECK(strstr(err, "not HTTP") != NULL);
	CHECK(get(ANSWER_CLOSE, "/x", WAIT_MS, &status, &body, err, sizeof err) == -1);
	CHECK(get(ANSWER_SHORT_BODY, "/x", WAIT_MS, &status, &body, err, sizeof err) == -1);
	CHECK(strstr(err, "before its reply was whole") != NULL);
	CHECK(get(ANSWER_NOTHING, "/x", 100, &status, &body, err, sizeof err) == -1);
	CHECK(strstr(err, "in time") != NULL);
	body.cap = 4;
	CHECK(get(ANSWER_TOO_LONG, "/x", WAIT_MS, &status, &body, err, sizeof err) == -1);
	CHECK(strstr(err, "over 4 bytes") != NULL && body.len <= 4);
	buf_free(&body);
	/* Nobody there. */
	snprintf(path, sizeof path, "%s/nobody.sock", test_dir);
	buf_init(&body, 1 << 16);
	CHECK(http_get(path, "/x", WAIT_MS, &status, &body, err, sizeof err) == -1);
	CHECK(strstr(err, "cannot reach the tend server") != NULL);
	CHECK(wire_connect_unix(path) == -1 && (errno == ENOENT || errno == ECONNREFUSED));
	buf_free(&body);
}

/* Waits for the socket to be readable, then reads it. */
static int
read_when_ready(struct ws *ws, struct received *r, char *err, size_t errlen)
{
	struct pollfd pfd = { .fd = ws->fd, .events = POLLIN };

	if (poll(&pfd, 1, WAIT_MS) != 1)
		return -2;
	return ws_read(ws, on_message, r, err, errlen);
}

static void
test_ws_open(void)
{
	struct received r;
	struct ws ws;
	char err[256], path[300];
	pid_t pid;
	int flags;

	/* The handshake; the frame that came with the answer; a message there and back. */
	pid = serve_once(ANSWER_WS, path, sizeof path);
	CHECK(ws_open(&ws, path, VIEWER_ENDPOINT, WAIT_MS, err, sizeof err) == 0);
	flags = fcntl(ws.fd, F_GETFL);
	CHECK(flags >= 0 && (flags & O_NONBLOCK) != 0);
	CHECK((fcntl(ws.fd, F_GETFD) & FD_CLOEXEC) != 0);
	received_init(&r);
	CHECK(ws_read(&ws, on_message, &r, err, sizeof err) == 0);
	CHECK(r.count == 1 && r.all.len == 9 && memcmp(r.all.data + 4, "early", 5) == 0);
	CHECK(ws_send(&ws, (const uint8_t *)"round trip", 10) == 0 && ws_flush(&ws, err, sizeof err) == 0);
	while (r.count < 2 && read_when_ready(&ws, &r, err, sizeof err) == 0)
		;
	CHECK(r.count == 2 && r.all.len == 9 + 14 && memcmp(r.all.data + 13, "round trip", 10) == 0);
	ws_close(&ws);
	buf_free(&r.all);
	server_done(pid, path);

	pid = serve_once(ANSWER_WS_BAD_ACCEPT, path, sizeof path);
	CHECK(ws_open(&ws, path, VIEWER_ENDPOINT, WAIT_MS, err, sizeof err) == -1);
	CHECK(strcmp(err, "the server answered the WebSocket handshake wrongly") == 0 && ws.fd == -1);
	server_done(pid, path);

	pid = serve_once(ANSWER_WS_EXTENSION, path, sizeof path);
	CHECK(ws_open(&ws, path, VIEWER_ENDPOINT, WAIT_MS, err, sizeof err) == -1);
	CHECK(strstr(err, "extension") != NULL);
	server_done(pid, path);

	pid = serve_once(ANSWER_WS_404, path, sizeof path);
	CHECK(ws_open(&ws, path, VIEWER_ENDPOINT, WAIT_MS, err, sizeof err) == -1);
	CHECK(strcmp(err, "the server refused the viewer socket: 404 Not Found (no WebSocket endpoint at /x)") == 0);
	server_done(pid, path);

	pid = serve_once(ANSWER_CLOSE, path, sizeof path);
	CHECK(ws_open(&ws, path, VIEWER_ENDPOINT, WAIT_MS, err, sizeof err) == -1);
	CHECK(strcmp(err, "the server closed the socket during the WebSocket handshake") == 0);
	server_done(pid, path);

	pid = serve_once(ANSWER_NOTHING, path, sizeof path);
	CHECK(ws_open(&ws, path, VIEWER_ENDPOINT, 100, err, sizeof err) == -1);
	CHECK(strcmp(err, "the server did not answer the WebSocket handshake within 100 ms") == 0);
	server_done(pid, path);
}

void
test_wire(void)
{
	const char *tmp = getenv("TMPDIR");

	signal(SIGPIPE, SIG_IGN);
	test_buf_cap();
	test_json_fields();
	test_json_strings();
	test_json_malformed();
	test_json_truncated();
	test_sha1_base64();
	test_ws_feed_splits();
	test_ws_feed_large();
	test_ws_feed_refusals();
	test_ws_send();
	test_ws_flush_read();
	snprintf(test_dir, sizeof test_dir, "%s/tend-wire-test-XXXXXX", tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(test_dir) == NULL) {
		perror("mkdtemp");
		CHECK(!"a temporary directory");
		return;
	}
	test_http_get();
	test_ws_open();
	rmdir(test_dir);
}
