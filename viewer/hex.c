/*
 * hex.c -- the value of one hex digit, for every reader that meets them: a
 * chunked body's sizes (http.c), a JSON string's \u escapes (json.c), a
 * percent-encoded header (the session's name in the viewer socket's 101)
 * and the test oracles' hex arguments.  In one place so that they all
 * accept the same digits (either case).  And bytes as lowercase hex, as
 * the server writes ids and generations (the hand-off's writer id, the
 * holder's generation that names a stream).
 */
#include "viewer.h"

void
hex_encode(const uint8_t *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 0x0f];
	}
	out[2 * n] = '\0';
}

int
hex_digit_value(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
percent_decode(const char *s, char *out, size_t outlen)
{
	size_t o = 0;

	for (const char *p = s; *p != '\0'; p++) {
		int c = (unsigned char)*p;

		if (c == '%') {
			int hi = hex_digit_value((uint8_t)p[1]), lo = hi < 0 ? -1 : hex_digit_value((uint8_t)p[2]);

			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				return -1;
			c = hi * 16 + lo;
			p += 2;
		}
		if (o + 1 >= outlen)
			return -1;
		out[o++] = (char)c;
	}
	out[o] = '\0';
	return 0;
}
