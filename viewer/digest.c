/*
 * digest.c -- SHA-1 and base64, for one thing: the Sec-WebSocket-Accept
 * with which the server shows it read the handshake's key (RFC 6455
 * §4.2.2).  Written here because the viewer links libc only; SHA-1 guards
 * no secret on this path, it only has to be the hash the server computes.
 */
#include <stdio.h>
#include <string.h>

#include "viewer.h"

/* RFC 6455 §1.3: appended to the key before hashing it for Sec-WebSocket-Accept. */
#define WS_HANDSHAKE_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

/* ------------------------------------------------------------------ SHA-1 */

static uint32_t
rol32(uint32_t v, int n)
{
	return v << n | v >> (32 - n);
}

static void
sha1_block(uint32_t h[5], const uint8_t *block)
{
	uint32_t w[80], a, b, c, d, e, f, k, t;

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
		    (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
	for (int i = 0; i < 80; i++) {
		if (i < 20) {
			f = (b & c) | (~b & d);
			k = 0x5a827999;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ed9eba1;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8f1bbcdc;
		} else {
			f = b ^ c ^ d;
			k = 0xca62c1d6;
		}
		t = rol32(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rol32(b, 30);
		b = a;
		a = t;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

void
wire_sha1(const void *data, size_t n, uint8_t digest[20])
{
	uint32_t h[5] = { 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0 };
	const uint8_t *p = data;
	uint8_t last[128];
	uint64_t bits = (uint64_t)n * 8;
	size_t tail, last_len;

	for (; n >= 64; p += 64, n -= 64)
		sha1_block(h, p);
	/* The rest, a 1 bit, zeros, and the length in bits: one block or two. */
	tail = n;
	memset(last, 0, sizeof last);
	memcpy(last, p, tail);
	last[tail] = 0x80;
	last_len = tail + 1 + 8 <= 64 ? 64 : 128;
	for (int i = 0; i < 8; i++)
		last[last_len - 1 - (size_t)i] = (uint8_t)(bits >> (8 * i));
	for (size_t at = 0; at < last_len; at += 64)
		sha1_block(h, last + at);
	for (int i = 0; i < 5; i++) {
		digest[4 * i] = (uint8_t)(h[i] >> 24);
		digest[4 * i + 1] = (uint8_t)(h[i] >> 16);
		digest[4 * i + 2] = (uint8_t)(h[i] >> 8);
		digest[4 * i + 3] = (uint8_t)h[i];
	}
}

size_t
wire_base64(const uint8_t *p, size_t n, char *out)
{
	static const char alphabet[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		out[o++] = alphabet[v >> 18 & 63];
		out[o++] = alphabet[v >> 12 & 63];
		out[o++] = i + 1 < n ? alphabet[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? alphabet[v & 63] : '=';
	}
	out[o] = '\0';
	return o;
}

void
ws_accept_for(const char *key, char out[29])
{
	char joined[128];
	uint8_t digest[20];
	int n;

	n = snprintf(joined, sizeof joined, "%s%s", key, WS_HANDSHAKE_GUID);
	if (n < 0 || (size_t)n >= sizeof joined)
		n = 0;	/* no key of ours is that long: an accept nothing matches */
	wire_sha1(joined, (size_t)n, digest);
	wire_base64(digest, sizeof digest, out);
}
