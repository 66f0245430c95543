// A session's screen as `tend mcp` shows it to an agent (the screen tool, and
// send when it is asked to read the screen after typing): the visible rows as
// plain text, with as many rows of scrollback above them as asked for, the
// cursor, the size, and the state of the session and its agent. The text is
// bounded with its bottom kept: the rows nearest the cursor matter most.
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { API_ROUTES, MAX_SCREEN_SCROLLBACK_ROWS, type ScreenTextReply } from '../../protocol/api/index.js';
import { keepTail, MAX_MAX_CHARS, textCutSchema, type TextCut } from './bounded-text.js';
import type { McpApi } from './mcp-api.js';
import { agentSummary, agentSummarySchema, notRunningNote, sessionStatusSchema } from './session-view.js';

/** The `scrollback` argument: rows of history above the visible screen. */
export const scrollbackArg = z
  .number()
  .int()
  .min(0)
  .max(MAX_SCREEN_SCROLLBACK_ROWS)
  .optional()
  .describe('Rows of history above the visible screen to include (default 0: the visible screen only). For the output of one shell command, the output tool is exact and cheaper.');

export const screenViewSchema = z.object({
  session: z.string().describe('The session id.'),
  name: z.string().nullable(),
  text: z.string().describe('The scrollback rows asked for, then the visible screen: one line per row, plain text (no colours or escape codes), trailing blanks trimmed.'),
  cut: textCutSchema,
  cursor: z
    .object({ x: z.number().int(), y: z.number().int(), visible: z.boolean() })
    .describe('The cursor: x is the column and y the row of the visible screen, both from 0 at the top left (scrollback rows in text are not counted).'),
  cols: z.number().int(),
  rows: z.number().int(),
  title: z.string().describe('The title the program set; empty when none.'),
  status: sessionStatusSchema,
  exit_code: z.number().int().nullable().describe('Once the program exited by itself: its exit code; else null.'),
  exit_signal: z.number().int().nullable().describe('Once a signal ended the program: its number; else null.'),
  agent: agentSummarySchema,
  scrollback: z
    .object({ shown: z.number().int(), available: z.number().int() })
    .describe('Rows of scrollback in text, and rows the session holds above its screen in all.'),
  note: z.string().optional().describe('Present when something about this screen needs saying: the program has ended (this is its last screen), or output is missing.'),
});

export type ScreenView = z.infer<typeof screenViewSchema>;

export interface ScreenReadOptions {
  /** Rows of scrollback above the screen. */
  scrollback: number;
  maxChars: number;
}

/** Says how to see the rows a cut left out. */
function readRowsAbove(scrollback: number): (lastOmitted: number) => string {
  return (lastOmitted) =>
    `to see lines 1–${lastOmitted}, call screen again with max_chars up to ${MAX_MAX_CHARS}${scrollback > 0 ? ' or a smaller scrollback' : ''}; the output tool reads one command's output whole, a range at a time`;
}

/** Why the answer needs a note: the program has ended, output is missing. */
function screenNote(screen: ScreenTextReply): string | undefined {
  const notes: string[] = [];
  const ended = notRunningNote(screen);
  if (ended !== undefined) notes.push(`this is the session's last screen: ${ended}`);
  if (screen.degraded) notes.push("part of this session's output was lost before tend read it (it left the holder's buffer, or a damaged history file lost rows): the screen or its scrollback is incomplete");
  if (screen.scrollback.dropped > 0) notes.push(`${screen.scrollback.dropped} older rows asked for are no longer kept (the session keeps its last rows within a memory budget)`);
  return notes.length === 0 ? undefined : notes.join('; ');
}

/**
 * Reads the screen of `target`: the session is looked up first, so the
 * screen and the state beside it are of one session even when an index or a
 * name moves meanwhile.
 */
export async function readScreenView(api: McpApi, target: string, options: ScreenReadOptions): Promise<ScreenView> {
  const session = await api.session(target);
  const screen = await api.again<ScreenTextReply>(API_ROUTES.readScreen, { target: session.id }, undefined, { format: 'text', scrollback: options.scrollback });
  const bounded = keepTail(screen.text, options.maxChars, readRowsAbove(options.scrollback));
  const note = screenNote(screen);
  return {
    session: session.id,
    name: session.name,
    text: bounded.text,
    cut: bounded.cut satisfies TextCut | null,
    cursor: { x: screen.cursor.x, y: screen.cursor.y, visible: screen.cursor.visible },
    cols: screen.cols,
    rows: screen.rows,
    title: screen.title,
    status: screen.status,
    exit_code: screen.exitCode,
    exit_signal: screen.exitSignal,
    agent: agentSummary(session.agent),
    scrollback: { shown: screen.scrollback.shown, available: screen.scrollback.available },
    ...(note !== undefined ? { note } : {}),
  };
}

/** Output quiet this long counts as the program having answered. */
export const QUIET_MS = 150;
/** How often the session's output offset is read while waiting for quiet. */
const QUIET_POLL_MS = 40;

/**
 * Waits until the session's output has been quiet for QUIET_MS (its byte
 * offset unchanged), at most `maxMs`. True when it went quiet (or the
 * session ended: nothing more will come), false when `maxMs` passed first or
 * the call was cancelled. Quiet is a guess, not a signal: a program that
 * thinks for longer than QUIET_MS before it answers is read before it does.
 * With afterFirstOutput, silence before the session's first byte does not count.
 */
export async function waitForQuietOutput(api: McpApi, sessionId: string, maxMs: number, signal: AbortSignal, options: { afterFirstOutput?: boolean } = {}): Promise<boolean> {
  const deadline = Date.now() + maxMs;
  let offset = -1;
  let changedAt = Date.now();
  for (;;) {
    const session = await api.session(sessionId);
    const now = Date.now();
    // The first reading is the baseline (quiet counts from when the input was
    // sent); bytes fed but not yet parsed are output still arriving.
    if ((offset !== -1 && session.offset !== offset) || session.unparsedBytes > 0) changedAt = now;
    offset = session.offset;
    if (session.status !== 'running') return true;
    // A program just started is quiet before it has said anything: that is not an answer.
    if (now - changedAt >= QUIET_MS && !(options.afterFirstOutput === true && offset === 0)) return true;
    if (now >= deadline) return false;
    try {
      await sleep(Math.min(QUIET_POLL_MS, deadline - now), undefined, { signal });
    } catch {
      return false; // cancelled
    }
  }
}
