// What `tend hooks install --print` shows: the lines a change takes out and
// puts in, in the shape of a unified diff (--- / +++ / @@ hunks with three
// lines of context), so a person can read the change before it is made.

/** Lines around a change that a hunk shows, as diff -u does. */
const CONTEXT_LINES = 3;
/** Above this many cells the middle is shown as replaced whole rather than matched line by line. */
const MAX_MATCH_CELLS = 4_000_000;

type Op = { kind: ' ' | '-' | '+'; line: string };

export function lineDiff(before: string, after: string, labels: { before: string; after: string }): string {
  const ops = diffOps(splitLines(before), splitLines(after));
  if (ops.every((op) => op.kind === ' ')) return '';
  return `--- ${labels.before}\n+++ ${labels.after}\n${hunks(ops).join('')}`;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function diffOps(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const same = (lines: string[]): Op[] => lines.map((line) => ({ kind: ' ', line }));
  const middle = matchLines(a.slice(head, a.length - tail), b.slice(head, b.length - tail));
  return [...same(a.slice(0, head)), ...middle, ...same(a.slice(a.length - tail))];
}

/** The longest common subsequence of lines, as keep / take out / put in. */
function matchLines(a: string[], b: string[]): Op[] {
  if ((a.length + 1) * (b.length + 1) > MAX_MATCH_CELLS) {
    return [...a.map((line): Op => ({ kind: '-', line })), ...b.map((line): Op => ({ kind: '+', line }))];
  }
  const width = b.length + 1;
  const common = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i * width + j] = a[i] === b[j] ? common[(i + 1) * width + j + 1]! + 1 : Math.max(common[(i + 1) * width + j]!, common[i * width + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: ' ', line: a[i++]! });
      j++;
    } else if (i < a.length && (j === b.length || common[(i + 1) * width + j]! >= common[i * width + j + 1]!)) {
      ops.push({ kind: '-', line: a[i++]! });
    } else {
      ops.push({ kind: '+', line: b[j++]! });
    }
  }
  return ops;
}

function hunks(ops: Op[]): string[] {
  const changed = ops.flatMap((op, i) => (op.kind === ' ' ? [] : [i]));
  const out: string[] = [];
  let k = 0;
  while (k < changed.length) {
    const from = Math.max(0, changed[k]! - CONTEXT_LINES);
    let to = changed[k]! + 1;
    // Changes whose contexts touch share a hunk.
    while (k < changed.length && changed[k]! - to <= 2 * CONTEXT_LINES) to = changed[k++]! + 1;
    to = Math.min(ops.length, to + CONTEXT_LINES);
    out.push(hunk(ops, from, to));
  }
  return out;
}

function hunk(ops: Op[], from: number, to: number): string {
  const lineNumber = (kinds: string) => ops.slice(0, from).filter((op) => kinds.includes(op.kind)).length;
  const part = ops.slice(from, to);
  const oldCount = part.filter((op) => op.kind !== '+').length;
  const newCount = part.filter((op) => op.kind !== '-').length;
  const start = (before: number, count: number) => (count === 0 ? before : before + 1);
  const header = `@@ -${start(lineNumber(' -'), oldCount)},${oldCount} +${start(lineNumber(' +'), newCount)},${newCount} @@\n`;
  return header + part.map((op) => `${op.kind}${op.line}\n`).join('');
}
