// A turn's answer read off the screen, for an agent whose hook gave none (an
// older version, a hook that failed): before the prompt is typed the await
// notes the row the cursor is on (the agent's input box), and when the turn
// ends it takes the rows below the prompt's own echo from that row down.
// Reading from the noted row, not searching the whole screen, keeps an answer
// that quotes the prompt, or an earlier turn's prompt, from being taken for it.

/** What the answer is read from: the session's screen, rows counted from the oldest one it holds. */
export interface AnswerScreen {
  /** The row the cursor is on. */
  cursorRow(): Promise<number>;
  /** The rows from `row` to the bottom of the screen, as text. */
  rowsFrom(row: number): Promise<string[]>;
}

/** The end of the prompt's last line that marks its echo on screen; short, so a wrapped row rarely splits it. */
const PROMPT_TAIL_CHARS = 12;

/**
 * The answer in `rows` (the screen from the row the prompt was typed at
 * down): what follows the row that shows the prompt's end, or the first row
 * when the agent shows the prompt otherwise (a pasted prompt as "[Pasted
 * text]"). Blank rows around it and spaces at row ends go; null when nothing
 * is left.
 */
export function answerBelowPrompt(rows: readonly string[], prompt: string): string | null {
  const lines = prompt.split(/\r\n|\r|\n/).map((l) => l.trim()).filter((l) => l !== '');
  const last = lines[lines.length - 1] ?? '';
  const tail = last.slice(-PROMPT_TAIL_CHARS);
  const echo = tail === '' ? -1 : rows.findIndex((row) => row.includes(tail));
  const body = rows.slice(echo >= 0 ? echo + 1 : 1).map((row) => row.replace(/\s+$/, ''));
  while (body.length > 0 && body[0] === '') body.shift();
  while (body.length > 0 && body[body.length - 1] === '') body.pop();
  return body.length === 0 ? null : body.join('\n');
}
