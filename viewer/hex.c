/*
 * hex.c -- the value of one hex digit, for every reader that meets them: a
 * chunked body's sizes (http.c), a JSON string's \u escapes (json.c) and
 * the test oracles' hex arguments.  In one place so that they all accept
 * the same digits (either case).
 */
#include "viewer.h"

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
