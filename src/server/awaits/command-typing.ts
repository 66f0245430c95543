// Typing a command line into a shell the way `await` needs it: one command,
// then Enter as its own write. Agents' input boxes (and some shells' paste
// handling) treat a newline that arrives with the text as more text, so Enter
// comes ENTER_GAP_MS later. Input the terminal's line discipline could not
// take whole (over MAX_CANON), or that spans lines (each line would be its own
// command with its own end mark), is written to a script the shell sources,
// so the shell runs it as the one command whose end mark we wait for.
//
// The line is typed as a writer of its own (named by the await's id): the
// holder counts what it has taken of it, so a line whose typing a server
// crash cut short is finished by the next server, never typed twice.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/** The gap between the command text and its Enter: part of the input protocol, see above. */
export const ENTER_GAP_MS = 20;
/** Longer input is staged through a script: a canonical-mode line may be cut at the kernel's line limit. */
export const MAX_TYPED_INPUT_BYTES = 1024;

export interface TypedCommand {
  /** What was typed (the input itself, or the line that sources its script, removed by removeStagedScript). */
  typed: string;
}

export interface TypingTarget {
  /** Resolves once the session's holder has taken the bytes (see input/durable-input.ts). */
  inputAt(writer: Uint8Array, at: number, bytes: Uint8Array): Promise<number>;
  /** How many of the writer's bytes the holder has. */
  inputTaken(writer: Uint8Array): Promise<number>;
}

/** The writer an await's line is typed as: the same for every server, from its id. */
export function typingWriter(awaitId: string): Uint8Array {
  return createHash('sha256').update(`tend await ${awaitId}`).digest().subarray(0, 16);
}

const ENTER = Buffer.from('\r');

/** Whether the input goes through a script rather than being typed. */
export function needsStaging(input: string): boolean {
  return Buffer.byteLength(input, 'utf8') > MAX_TYPED_INPUT_BYTES || /[\r\n]/.test(input);
}

/** Where the script of the await `id` is staged. */
export function stagedScriptPath(stagingDir: string, id: string): string {
  return join(stagingDir, `${id}.sh`);
}

/** Removes the await's staged script, if it has one. */
export function removeStagedScript(stagingDir: string, id: string): void {
  try {
    unlinkSync(stagedScriptPath(stagingDir, id));
  } catch {
    /* none was staged, or already gone */
  }
}

/**
 * The line to type for `input`: the input itself, or (staging it under
 * `stagingDir` as `<id>.sh`) the line that sources it. `stage` stages input
 * however short: what the shell sources it parses as a file, so an unbalanced
 * quote ends that one command with a syntax error rather than leaving the
 * shell at a continuation prompt. Nothing is typed yet.
 */
export function prepareCommand(input: string, stagingDir: string, id: string, options: { stage?: boolean } = {}): TypedCommand {
  if (options.stage !== true && !needsStaging(input)) return { typed: input };
  // The path is quoted for bash, zsh and fish alike, which only works
  // without quote characters in it; tend's runtime paths have none.
  const path = stagedScriptPath(stagingDir, id);
  if (/['\\]/.test(path)) throw new Error(`cannot stage long input: the runtime path ${path} holds a quote or backslash`);
  mkdirSync(stagingDir, { recursive: true, mode: 0o700 });
  writeFileSync(path, input.endsWith('\n') ? input : `${input}\n`, { mode: 0o600 });
  return { typed: `source '${path}'` };
}

/**
 * Types the prepared line and presses Enter ENTER_GAP_MS later. Resolves
 * once the holder has taken Enter; rejects if the session refuses input or
 * its holder goes first (then nothing more is written).
 */
export async function typeCommand(target: TypingTarget, awaitId: string, command: TypedCommand): Promise<void> {
  const writer = typingWriter(awaitId);
  const line = Buffer.from(command.typed, 'utf8');
  await target.inputAt(writer, 0, line);
  await new Promise((resolve) => setTimeout(resolve, ENTER_GAP_MS));
  await target.inputAt(writer, line.length, ENTER);
}

/**
 * Finishes typing a line a server crash may have cut short: sends what the
 * holder lacks of the line and its Enter (nothing, if it has them all).
 */
export async function finishTyping(target: TypingTarget, awaitId: string, typedLine: string): Promise<void> {
  const writer = typingWriter(awaitId);
  const line = Buffer.from(typedLine, 'utf8');
  const taken = await target.inputTaken(writer);
  if (taken > line.length) return;
  if (taken < line.length) {
    await target.inputAt(writer, taken, line.subarray(taken));
    await new Promise((resolve) => setTimeout(resolve, ENTER_GAP_MS));
  }
  await target.inputAt(writer, line.length, ENTER);
}
