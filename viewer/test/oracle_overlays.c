/*
 * oracle_overlays.c -- the native attach's overlays (overlays.c) and
 * backoff (backoff.c) on stdin/stdout, for the TypeScript test that holds
 * them against src/cli/attach/overlay.ts, screen-overlays.ts and backoff.ts
 * (test/viewer-native/overlays.test.ts). One request a line, one answer
 * line back for each; text and bytes as hex, "-" for none.
 *
 *   draw TEXT COLS ROWS        overlay_draw_line: the bytes written
 *   erase COUNT COLS ROWS      overlay_erase: the bytes written
 *   fit TEXT WIDTH             overlay_fit_columns: the bytes
 *   script READONLY PREFIX LABEL COLS ROWS OP...
 *       one attach's overlays driven by OPs, each answered by what it
 *       wrote (hex), with "+R" when it asks for a repaint; the answers
 *       space-separated:
 *         p    a snapshot painted (painted, then after_paint)
 *         k    a key typed outside a panel
 *         d    stream output arrives: what the attach does (give way when
 *              rows are covered and the overlay gives way; "held" when it
 *              holds the output back, "pass" when nothing covers)
 *         g    stream output arrives under the attach's status line: it
 *              gives way (overlays_status_give_way)
 *         n    the incomplete-screen notice
 *         m    a key typed read-only (the marker)
 *         tN   N ms pass
 *         l    the attach ends (leaving)
 *         s    the state: COVERED,REPAINT_OWED,GIVES_WAY
 *   backoff OP...
 *       backoff.c driven by OPs: nN asks for the next delay at N ms (the
 *       delay, or "give-up"), r resets; the answers space-separated
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer.h"
#include "oracle_io.h"

/* The longest text a request draws or fits, with its NUL. */
#define TEXT_MAX_BYTES (1024 * 1024)
#define OUT_CAP_BYTES (1024 * 1024)

/* Hex ("-": none) to a NUL-terminated string in out (outlen bytes); -1 when it is not hex or too long. */
static int
hex_text(const char *hex, char *out, size_t outlen)
{
	size_t n;
	uint8_t *bytes = oracle_hex_decode(hex, &n);
	int rc = -1;

	if (bytes != NULL && n < outlen) {
		memcpy(out, bytes, n + 1);
		rc = 0;
	}
	free(bytes);
	return rc;
}

static void
run_script(char **w, int count)
{
	static char label[OVERLAY_LABEL_BYTES];
	struct overlays ov;
	struct buf out;
	int64_t now = 1000;
	int cols, rows;

	if (count < 6 || hex_text(w[3], label, sizeof label) != 0) {
		printf("error: script READONLY PREFIX LABEL COLS ROWS OP...\n");
		return;
	}
	cols = atoi(w[4]);
	rows = atoi(w[5]);
	overlays_init(&ov, strcmp(w[1], "1") == 0, atoi(w[2]), label);
	buf_init(&out, OUT_CAP_BYTES);
	for (int i = 6; i < count; i++) {
		const char *op = w[i];
		bool repaint = false;

		buf_clear(&out);
		if (i > 6)
			putchar(' ');
		switch (op[0]) {
		case 'p':
			overlays_painted(&ov);
			overlays_after_paint(&ov, true, &out, cols, rows, now);
			break;
		case 'k':
			repaint = overlays_key_typed(&ov, &out, cols, rows);
			break;
		case 'd':
			if (ov.covered > 0 && !overlays_gives_way(&ov)) {
				printf("held");
				continue;
			}
			if (ov.covered == 0) {
				printf("pass");
				continue;
			}
			overlays_give_way(&ov, &out, cols, rows);
			break;
		case 'g':
			overlays_status_give_way(&ov, &out, cols, rows);
			break;
		case 'n':
			overlays_show_notice(&ov, &out, cols, rows, now);
			break;
		case 'm':
			overlays_show_read_only_marker(&ov, true, &out, cols, rows, now);
			break;
		case 't':
			now += atoi(op + 1);
			repaint = overlays_tick(&ov, &out, cols, rows, now);
			break;
		case 'l':
			overlays_leaving(&ov, &out, cols, rows);
			break;
		case 's':
			printf("%d,%d,%d", ov.covered, overlays_repaint_owed(&ov) ? 1 : 0, overlays_gives_way(&ov) ? 1 : 0);
			continue;
		default:
			printf("error");
			continue;
		}
		oracle_print_hex(out.data, out.len);
		if (repaint)
			printf("+R");
	}
	putchar('\n');
	buf_free(&out);
}

static void
run_backoff(char **w, int count)
{
	struct backoff b;

	backoff_reset(&b);
	for (int i = 1; i < count; i++) {
		if (i > 1)
			putchar(' ');
		if (w[i][0] == 'r') {
			backoff_reset(&b);
			putchar('r');
		} else if (w[i][0] == 'n') {
			int64_t delay = backoff_next(&b, strtoll(w[i] + 1, NULL, 10));

			if (delay < 0)
				printf("give-up");
			else
				printf("%lld", (long long)delay);
		} else {
			printf("error");
		}
	}
	putchar('\n');
}

/* One line: what it wrote in hex, or "error:" and what is wrong; nothing for an empty line. */
static void
answer(struct oracle_request *r, struct buf *out)
{
	static char text[TEXT_MAX_BYTES];
	char **w = r->word;
	int count = r->count;

	/* A request of more than ORACLE_MAX_WORDS words is answered for its first ones. */
	if (count == 0)
		return;
	if (strcmp(w[0], "draw") == 0 && count == 4 && hex_text(w[1], text, sizeof text) == 0) {
		overlay_draw_line(out, text, atoi(w[2]), atoi(w[3]));
	} else if (strcmp(w[0], "erase") == 0 && count == 4) {
		overlay_erase(out, atoi(w[1]), atoi(w[2]), atoi(w[3]));
	} else if (strcmp(w[0], "fit") == 0 && count == 3 && hex_text(w[1], text, sizeof text) == 0) {
		overlay_fit_columns(out, text, atoi(w[2]));
	} else if (strcmp(w[0], "backoff") == 0) {
		run_backoff(w, count);
		return;
	} else if (strcmp(w[0], "script") == 0) {
		run_script(w, count);
		return;
	} else {
		printf("error: cannot read the request\n");
		return;
	}
	oracle_print_hex(out->data, out->len);
	putchar('\n');
}

int
main(void)
{
	return oracle_serve(answer, OUT_CAP_BYTES);
}
