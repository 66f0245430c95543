// The terminal tools of `tend mcp`: send (text and named keys, as a person
// types them) and screen (what a person sees). They work on any program: a
// REPL, an editor, a TUI, an agent, a shell without integration. Nothing is
// added to what the program reads or shows: no markers, no echo tricks.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { KEY_NAMES_HELP, KeyNameError, parseKeys } from '../../keys.js';
import { API_ROUTES, type InputReply } from '../../../protocol/api/index.js';
import { maxCharsArg } from '../bounded-text.js';
import { readScreenView, screenViewSchema, scrollbackArg, waitForQuietOutput, QUIET_MS } from '../screen-view.js';
import { sessionArg } from '../session-view.js';
import { defineTool, ToolError, type AnyMcpTool } from '../tool-kit.js';

/** How long send waits for the output to go quiet before it reads the screen, unless told otherwise. */
const DEFAULT_SCREEN_WAIT_MS = 3000;
const MAX_SCREEN_WAIT_MS = 60_000;

/** The sends of this tend mcp under way, by session: the last one's end. */
const typingTurns = new Map<string, Promise<void>>();

/**
 * Runs `typeParts` once every send to the session made before it has typed
 * all its parts: an agent that calls send twice at once gets each call's
 * text, keys and Enter together, never mixed with the other's.
 */
async function inTypingTurn(sessionId: string, typeParts: () => Promise<void>): Promise<void> {
  const before = typingTurns.get(sessionId) ?? Promise.resolve();
  const mine = before.then(typeParts);
  const end = mine.catch(() => undefined);
  typingTurns.set(sessionId, end);
  try {
    await mine;
  } finally {
    if (typingTurns.get(sessionId) === end) typingTurns.delete(sessionId);
  }
}

const screen = defineTool({
  name: 'screen',
  title: "Read a session's screen",
  description:
    "Returns what a person looking at the session's terminal sees now: the visible screen as plain text (one line per row, no colours or escape codes), and with scrollback N the N rows of history above it; the cursor position; the size; the title; whether the program still runs or exited (and its exit code); the state of the AI agent in it, if any. " +
    "Use it to see where a program is (a REPL's prompt, a TUI, a question asked, an error), after send, or for a program that is no shell. A session whose program exited still has its last screen, and the answer says how it ended. " +
    'For the exact output of one shell command, use output (or run, which returns it). Long text is cut to its bottom rows, and cut says what was left out.',
  input: z.object({ session: sessionArg, scrollback: scrollbackArg, max_chars: maxCharsArg }),
  output: screenViewSchema,
  hints: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, call) {
    return readScreenView(call.api, args.session, { scrollback: args.scrollback ?? 0, maxChars: args.max_chars ?? call.maxChars });
  },
});

const send = defineTool({
  name: 'send',
  title: 'Type into a session',
  description:
    'Types into a session as a person at its keyboard would: text, then named keys, then Enter, in that order. Use it for programs that are not a shell command: a REPL (python, node, psql), an editor, a TUI, a question a program asks (y/n, a password prompt), or to stop what runs with keys ["C-c"]. ' +
    `Key names: ${KEY_NAMES_HELP}. An unknown key name refuses the whole call and nothing is typed. ` +
    'With screen_after, it then waits until the output has been quiet for a moment (at most wait_ms) and returns the screen as the screen tool does: one call to type and read. ' +
    'To run a shell command and get its exit code and output, use run instead: it waits for the command\'s end, not for quiet. ' +
    'Every part reaches the program exactly once, even across a restart of tend. A session whose program has ended takes no input: the error says so, and its screen stays readable.',
  input: z.object({
    session: sessionArg,
    text: z.string().optional().describe('Text to type, exactly as given (UTF-8). To submit it, add enter: true rather than a newline in the text: input boxes take a typed newline as more text.'),
    keys: z.array(z.string()).optional().describe('Named keys to press after the text, in order: e.g. ["C-c"], ["Up", "Enter"], ["Escape", ":", "w", "q", "Enter"], ["M-x"], ["F5"].'),
    enter: z.boolean().optional().describe('Press Enter last (default false).'),
    screen_after: z.boolean().optional().describe('Wait for the output to go quiet, then return the screen (default false).'),
    wait_ms: z.number().int().min(0).max(MAX_SCREEN_WAIT_MS).optional().describe(`With screen_after: the longest wait for the output to go quiet (${QUIET_MS} ms without output), in milliseconds (default ${DEFAULT_SCREEN_WAIT_MS}).`),
    scrollback: scrollbackArg,
    max_chars: maxCharsArg,
  }),
  output: z.object({
    session: z.string().describe('The session id.'),
    bytes: z.number().int().describe('Bytes typed in all.'),
    quiet: z.boolean().nullable().describe('With screen_after: whether the output went quiet before wait_ms passed (false: the program was still printing; call screen again to see more). Else null.'),
    screen: screenViewSchema.nullable().describe('With screen_after: the screen after the input, as the screen tool answers; else null.'),
  }),
  // Keys reach whatever runs: C-c ends a command, "y" answers a question.
  hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(args, call) {
    // Read before anything is typed, so a misspelt key types nothing at all.
    let keys = '';
    try {
      keys = parseKeys(args.keys ?? []);
    } catch (err) {
      if (err instanceof KeyNameError) throw new ToolError('unknown_key', `${err.message}. Nothing was typed.`, { known_keys: KEY_NAMES_HELP });
      throw err;
    }
    const text = args.text ?? '';
    if (text === '' && keys === '' && args.enter !== true) {
      throw new ToolError('nothing_to_send', 'nothing to type: give text, keys or enter: true (to only read the screen, use screen)');
    }
    // One session for every part, even if an index or a name moves meanwhile.
    const { id } = await call.api.session(args.session);
    let bytes = 0;
    // Each part is one write named by its own key: made again after a server
    // restart, the session's holder drops what it already had.
    const write = async (body: { text: string } | { base64: string }) => {
      const key = randomBytes(16).toString('hex');
      bytes += (await call.api.again<InputReply>(API_ROUTES.sendInput, { target: id }, { ...body, key })).bytes;
    };
    await inTypingTurn(id, async () => {
      if (text !== '') await write({ text });
      if (keys !== '') await write({ base64: Buffer.from(keys, 'utf8').toString('base64') });
      // Enter as its own write: input boxes take a newline that comes with text as more text.
      if (args.enter === true) await write({ text: '\r' });
    });
    if (args.screen_after !== true) return { session: id, bytes, quiet: null, screen: null };
    const quiet = await waitForQuietOutput(call.api, id, args.wait_ms ?? DEFAULT_SCREEN_WAIT_MS, call.signal);
    const shown = await readScreenView(call.api, id, { scrollback: args.scrollback ?? 0, maxChars: args.max_chars ?? call.maxChars });
    return { session: id, bytes, quiet, screen: shown };
  },
});

export const terminalTools: AnyMcpTool[] = [send, screen];
