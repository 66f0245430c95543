// The keys of `tend attach` that follow its prefix (default Ctrl-\, see
// detach-key.ts): one table, shown by `prefix ?` and by `tend attach --help`.
// Everything else the user types goes to the session unchanged. After the
// prefix, a key in the table runs its command, the prefix again sends one
// prefix (so the session can still be given it), and any other key is
// swallowed whole — as tmux does: a mistyped command never reaches the
// program as a stray keystroke. The filter is a state machine over bytes and
// accepts any chunking: a prefix at the end of one stdin read waits for the
// next read.
import { describeDetachKey } from './detach-key.js';

export type PrefixCommand = 'detach' | 'keys' | 'sessions';

interface PrefixKey {
  /** The byte typed after the prefix. */
  byte: number;
  command: PrefixCommand;
  /** What it does, for people: a line of the `prefix ?` panel and of --help. */
  does: string;
}

/** The table: every key after the prefix that does something. */
export const PREFIX_KEYS: readonly PrefixKey[] = [
  { byte: 0x64, command: 'detach', does: 'detach; the session keeps running' }, // d
  { byte: 0x73, command: 'sessions', does: 'list the sessions, switch to another' }, // s
  { byte: 0x3f, command: 'keys', does: 'show these keys' }, // ?
];

/**
 * The keys, one line each, aligned: `Ctrl-\ d        detach; ...`. The same
 * lines make the `prefix ?` panel and the verb's --help.
 */
export function describePrefixKeys(prefix: number): string[] {
  const name = describeDetachKey(prefix);
  const rows: Array<[string, string]> = PREFIX_KEYS.map((k) => [`${name} ${String.fromCharCode(k.byte)}`, k.does]);
  rows.push([`${name} ${name}`, `send ${name} itself to the session`]);
  const width = Math.max(...rows.map(([keys]) => keys.length));
  return [...rows.map(([keys, does]) => `${keys.padEnd(width)}  ${does}`), `${name} then any other key does nothing`];
}

export interface PrefixFiltered {
  /** Bytes for the session, in order (may be empty). */
  forward: Uint8Array;
  /** A command was typed; `forward` holds what came before it. */
  command: PrefixCommand | null;
  /** The bytes of the read after the command, not yet looked at (empty without a command). */
  rest: Uint8Array;
}

const ESC = 0x1b;
/** A key that is an escape sequence (arrows, function keys) is this long at most; longer is not a key. */
const KEY_SEQUENCE_MAX_BYTES = 32;

const enum State {
  /** Bytes go to the session. */
  GROUND,
  /** The prefix was typed: the next byte says what to do. */
  PREFIX,
  /** After the prefix, ESC began a key to swallow: `[` (CSI), `O` (SS3) or another byte (Alt-key) follows. */
  KEY_ESC,
  /** Swallowing a CSI key sequence up to its final byte. */
  KEY_CSI,
  /** Swallowing a fixed number of bytes: SS3's final, a UTF-8 character's rest, a mouse report's three. */
  KEY_SKIP,
}

export class PrefixKeyFilter {
  private state = State.GROUND;
  /** Bytes still to swallow in KEY_SKIP; bytes seen in KEY_CSI. */
  private count = 0;

  constructor(private readonly prefix: number) {}

  /** A prefix was typed and what follows it has not all arrived. */
  get isPending(): boolean {
    return this.state !== State.GROUND;
  }

  feed(chunk: Uint8Array): PrefixFiltered {
    // Fast path: most reads hold no prefix at all and are passed as they are.
    if (this.state === State.GROUND && !chunk.includes(this.prefix)) return { forward: chunk, command: null, rest: EMPTY };
    const out: number[] = [];
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      switch (this.state) {
        case State.GROUND:
          if (byte === this.prefix) this.state = State.PREFIX;
          else out.push(byte);
          break;
        case State.PREFIX: {
          this.state = State.GROUND;
          if (byte === this.prefix) {
            out.push(this.prefix);
            break;
          }
          const key = PREFIX_KEYS.find((k) => k.byte === byte);
          if (key) return { forward: Uint8Array.from(out), command: key.command, rest: chunk.subarray(i + 1) };
          // Not a command: swallow the whole key, not just its first byte.
          // A lone ESC at the end of a read is the Esc key itself.
          if (byte === ESC && i + 1 < chunk.length) this.state = State.KEY_ESC;
          else this.skip(utf8TrailBytes(byte));
          break;
        }
        case State.KEY_ESC:
          if (byte === 0x5b) {
            this.state = State.KEY_CSI;
            this.count = 0;
          } else if (byte === 0x4f) this.skip(1);
          else this.state = State.GROUND; // Alt and a key: both swallowed
          break;
        case State.KEY_CSI:
          this.count++;
          if (byte >= 0x40 && byte <= 0x7e) {
            // `CSI M` with no parameters is a mouse report: three raw bytes follow.
            if (byte === 0x4d && this.count === 1) this.skip(3);
            else this.state = State.GROUND;
          } else if (byte < 0x20 || byte > 0x3f || this.count > KEY_SEQUENCE_MAX_BYTES) {
            // Not a key sequence after all: this byte is typing again.
            this.state = State.GROUND;
            i--;
          }
          break;
        case State.KEY_SKIP:
          if (--this.count === 0) this.state = State.GROUND;
          break;
      }
    }
    return { forward: Uint8Array.from(out), command: null, rest: EMPTY };
  }

  private skip(bytes: number): void {
    this.count = bytes;
    this.state = bytes > 0 ? State.KEY_SKIP : State.GROUND;
  }
}

const EMPTY = new Uint8Array(0);

/** How many continuation bytes follow a UTF-8 lead byte (0 for ASCII or a stray byte). */
function utf8TrailBytes(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf7) return 3;
  if (lead >= 0xe0) return lead <= 0xef ? 2 : 0;
  if (lead >= 0xc2) return 1;
  return 0;
}
