// Typing a prompt into an agent's input box for `await`: the text, then Enter
// as its own write ENTER_GAP_MS later (an input box takes an Enter that comes
// in the same read as the text for more text). A prompt that spans lines, or
// is long, goes as one bracketed paste (ESC[200~ … ESC[201~), as a terminal
// pastes it: its newlines stay text instead of each submitting a prompt, and
// the agent takes it whole. The bytes are the await's own writer's (from its
// id), so a server that dies while typing never has them typed twice.
import { ENTER_GAP_MS, typingWriter, type TypingTarget } from './command-typing.js';

/** Prompts longer than this are pasted: typed key by key, an agent may take a burst this long for a paste anyway. */
export const MAX_TYPED_PROMPT_BYTES = 1024;
const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';
const ENTER = Buffer.from('\r');

/** A multi-line prompt for an agent whose terminal has bracketed paste off: its newlines would each submit. */
export class PromptNeedsPasteError extends Error {}

/** Whether the prompt goes as a bracketed paste. */
export function promptNeedsPaste(prompt: string): boolean {
  return Buffer.byteLength(prompt, 'utf8') > MAX_TYPED_PROMPT_BYTES || /[\r\n]/.test(prompt);
}

/**
 * The bytes that put `prompt` in the input box (Enter not included). A
 * paste carries its newlines as CR, as terminals send them, and cannot be
 * ended early by an end marker inside the prompt.
 */
export function promptBytes(prompt: string, bracketedPaste: boolean): Buffer {
  const text = prompt.replace(/[\r\n]+$/, '');
  if (!promptNeedsPaste(text)) return Buffer.from(text, 'utf8');
  if (!bracketedPaste) {
    if (/[\r\n]/.test(text)) {
      throw new PromptNeedsPasteError("the agent's terminal has bracketed paste off, so each line of a multi-line prompt would be sent as a prompt of its own; give the prompt on one line");
    }
    return Buffer.from(text, 'utf8');
  }
  const body = text.replace(/\r\n|\n/g, '\r').split(PASTE_END).join('');
  return Buffer.from(`${PASTE_START}${body}${PASTE_END}`, 'utf8');
}

/**
 * Writes `bytes`, calls `beforeEnter` once the holder has them (the turn is
 * the agent's from then on), and presses Enter ENTER_GAP_MS later. Resolves
 * once the holder has taken Enter.
 */
export async function typePrompt(target: Pick<TypingTarget, 'inputAt'>, awaitId: string, bytes: Uint8Array, beforeEnter: () => void): Promise<void> {
  const writer = typingWriter(awaitId);
  await target.inputAt(writer, 0, bytes);
  beforeEnter();
  await new Promise((resolve) => setTimeout(resolve, ENTER_GAP_MS));
  await target.inputAt(writer, bytes.length, ENTER);
}

/**
 * Finishes typing a prompt a server crash may have cut short (`bytes` as
 * first computed, kept in the store): sends what the holder lacks of them,
 * calls `beforeEnter`, and presses Enter; nothing when it has Enter already.
 */
export async function finishPrompt(target: TypingTarget, awaitId: string, bytes: Uint8Array, beforeEnter: () => void): Promise<void> {
  const writer = typingWriter(awaitId);
  const taken = await target.inputTaken(writer);
  if (taken > bytes.length) return;
  if (taken < bytes.length) await target.inputAt(writer, taken, bytes.subarray(taken));
  beforeEnter();
  await new Promise((resolve) => setTimeout(resolve, ENTER_GAP_MS));
  await target.inputAt(writer, bytes.length, ENTER);
}

/** The prompt in bytes typePrompt typed (its paste markers off, CRs as newlines). */
export function promptOfBytes(bytes: string): string {
  return bytes.split(PASTE_START).join('').split(PASTE_END).join('').replace(/\r/g, '\n');
}
