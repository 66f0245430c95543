// Test support for the access gate's attack tests (issue 28): each attack is
// tried as a real request, and its row — what was tried, the refusal it
// should meet, what it got — is recorded here; when the test file ends the
// rows are printed as one table, so a run shows every attack tried and
// whether each was refused (the target: all). A row records; it does not
// assert: each test asserts its own outcome too, so a row that did not hold
// fails that test, and the table still shows it beside the others.
import { after } from 'node:test';

/** What came back for an attack: an HTTP answer, a WebSocket upgrade's answer, or a note. */
export interface AttackOutcome {
  /** HTTP status, or the status an upgrade was refused with; 101 when an upgrade was accepted. */
  status: number;
  /** The error code of a JSON refusal, when there was one. */
  code?: string;
  /** Anything else worth a column: the first words of the message, a cookie set or not. */
  note?: string;
}

export interface AttackRow {
  attack: string;
  /** The refusal expected, in words ("403 forbidden: host not allowed"). */
  expected: string;
  got: AttackOutcome;
  /** Whether the gate held: the attack got what was expected. */
  held: boolean;
}

/** The refusal an attack should meet: a status (left out when any refusal will do), a code, words. */
export interface ExpectedRefusal {
  status?: number;
  code?: string;
  words?: string;
}

export interface AttackTable {
  /**
   * Records one attack. held says whether the outcome is the refusal
   * expected; leave it out to mean "refused with the expected status".
   */
  record(attack: string, expected: ExpectedRefusal, got: AttackOutcome, held?: boolean): boolean;
  readonly rows: readonly AttackRow[];
  /** The table as text: one row a line, then a count of attacks held. */
  render(): string;
}

const MAX_NOTE_CHARS = 70;

function describeExpected(expected: ExpectedRefusal): string {
  return [expected.status === undefined ? undefined : String(expected.status), expected.code, expected.words].filter((p) => p !== undefined && p !== '').join(' ');
}

function describeGot(got: AttackOutcome): string {
  const flat = got.note?.replace(/\s+/g, ' ').trim();
  const note = flat === undefined ? undefined : flat.length > MAX_NOTE_CHARS ? `${flat.slice(0, MAX_NOTE_CHARS - 1)}…` : flat;
  return [String(got.status), got.code, note].filter((p) => p !== undefined && p !== '').join(' ');
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

/** Makes a table for one test file, printed on stdout when the file's tests end (the test runner shows it as comment lines). */
export function attackTable(title: string, options: { printAtEnd?: boolean } = {}): AttackTable {
  const rows: AttackRow[] = [];
  const table: AttackTable = {
    rows,
    record(attack, expected, got, held) {
      const ok = held ?? ((expected.status === undefined || got.status === expected.status) && (expected.code === undefined || got.code === expected.code));
      rows.push({ attack, expected: describeExpected(expected), got, held: ok });
      return ok;
    },
    render() {
      const head = ['attack', 'expected', 'got', 'held'];
      const body = rows.map((r) => [r.attack, r.expected, describeGot(r.got), r.held ? 'yes' : 'NO']);
      const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
      const line = (cells: string[]) => cells.map((c, i) => pad(c, widths[i]!)).join(' | ').trimEnd();
      const held = rows.filter((r) => r.held).length;
      return [
        `${title}: ${held} of ${rows.length} attacks refused as expected`,
        line(head),
        widths.map((w) => '-'.repeat(w)).join('-+-'),
        ...body.map(line),
      ].join('\n');
    },
  };
  if (options.printAtEnd !== false) {
    after(() => {
      if (rows.length === 0) return;
      process.stdout.write(`${table.render()}\n`);
    });
  }
  return table;
}
