// Starting an agent in a session's shell: the command line (the agent's own
// flags for tend's hooks and a conversation id, or its resume flags), quoted
// for the shell that will read it, typed at the shell's prompt with Enter as
// its own write (as `await` types). The agent runs under the shell, so when it
// ends (or is put to sleep) the shell and the session stay.
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tendHooksSettings } from '../../common/agents/catalogue.js';
import type { AgentKind } from '../../protocol/api/agents.js';
import { ENTER_GAP_MS } from '../awaits/command-typing.js';
import type { Disposable } from '../../common/lifecycle.js';

/** What launching needs of the session. */
export interface LaunchTarget {
  readonly id: string;
  /** The program the session started (its shell). */
  readonly argv: readonly string[];
  inputAt(writer: Uint8Array, at: number, bytes: Uint8Array): Promise<number>;
  onOutput(listener: (bytes: Uint8Array) => void): Disposable;
}

/** Longest wait for the shell's first prompt mark before typing anyway (a shell without tend's integration). */
const PROMPT_WAIT_MS = 3000;
/** Without marks, the shell counts as at its prompt once its output has been quiet this long. */
const QUIET_PROMPT_MS = 300;

/** The file of tend's hooks for one agent run (Claude's --settings): private, in the agent's directory. */
export function writeHookSettings(agentsDir: string, sessionId: string, kind: AgentKind, hookClientPath: string): string {
  const dir = join(agentsDir, sessionId);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${kind}-settings.json`);
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ hooks: tendHooksSettings(hookClientPath, kind) }, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
  return file;
}

/** Whether the text holds a character no typed command line may (it would end or corrupt the line). */
export function hasControlCharacter(s: string): boolean {
  return /[\x00-\x1f\x7f]/.test(s);
}

/** A command line for the session's shell: fish quotes otherwise than the POSIX shells. */
export function shellCommandLine(shellArgv: readonly string[], argv: readonly string[]): string {
  const fish = basename(shellArgv[0] ?? '') === 'fish';
  return argv.map((a) => (fish ? fishQuote(a) : posixQuote(a))).join(' ');
}

function posixQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function fishQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;
}

/** Resolves once the shell shows its prompt (its integration's A/B mark), or it has been quiet, or PROMPT_WAIT_MS passed. */
export function waitForPrompt(target: LaunchTarget, { alreadyQuietMs = 0 }: { alreadyQuietMs?: number } = {}): Promise<void> {
  return new Promise((resolve) => {
    let tail = '';
    let quiet: NodeJS.Timeout | null = null;
    const finish = () => {
      clearTimeout(limit);
      if (quiet !== null) clearTimeout(quiet);
      sub.dispose();
      resolve();
    };
    const limit = setTimeout(finish, PROMPT_WAIT_MS);
    const armQuiet = (ms: number) => {
      if (quiet !== null) clearTimeout(quiet);
      quiet = setTimeout(finish, ms);
    };
    const sub = target.onOutput((bytes) => {
      tail = (tail + Buffer.from(bytes).toString('latin1')).slice(-256);
      if (/\x1b\](133|633);[AB]/.test(tail)) {
        // The prompt is being drawn: type once it is (its output settles).
        armQuiet(50);
        return;
      }
      armQuiet(QUIET_PROMPT_MS);
    });
    if (alreadyQuietMs > 0) armQuiet(alreadyQuietMs);
  });
}

/** Types `line` and Enter as its own write, as a writer of its own (named by `purpose`), at the prompt. */
export async function typeAtPrompt(target: LaunchTarget, purpose: string, line: string): Promise<void> {
  const writer = createHash('sha256').update(`tend agent ${target.id} ${purpose}`).digest().subarray(0, 16);
  const bytes = Buffer.from(line, 'utf8');
  await target.inputAt(writer, 0, bytes);
  await new Promise((resolve) => setTimeout(resolve, ENTER_GAP_MS));
  await target.inputAt(writer, bytes.length, Buffer.from('\r'));
}
