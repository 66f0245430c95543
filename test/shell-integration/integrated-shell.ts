// A real shell on a real PTY (through a holder), started with tend's shell
// integration injected, its output parsed by a headless xterm that a
// CommandIndex watches — the path a server session takes, minus the server.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import xtermHeadless from '@xterm/headless';
import type { Terminal } from '@xterm/headless';
import { HolderConnection, spawnHolder } from '../../src/holder-client/index.js';
import { CommandIndex, type IndexedCommand } from '../../src/server/commands/index.js';
import { injectShellIntegration, type IntegratedShell } from '../../src/shell-integration/index.js';
import type { TestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';

const { Terminal: HeadlessTerminal } = xtermHeadless;

/** Generous for a loaded 2-core machine: a shell's first prompt can take seconds there. */
export const SHELL_TEST_TIMEOUT_MS = 90_000;

/** The shell's absolute path, or null when it is not installed. */
export function findShell(shell: IntegratedShell): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${shell}`], { encoding: 'utf8' });
  const path = r.stdout.trim();
  return r.status === 0 && path.startsWith('/') ? path : null;
}

export interface IntegratedShellOptions {
  shell: IntegratedShell;
  shellPath: string;
  /** HOME for the shell: the user's rc files are written here by the test. */
  home: string;
  /** Arguments after the shell's path (e.g. ['-l']). */
  args?: string[];
  cols?: number;
  rows?: number;
}

export class IntegratedShellSession {
  /** Every byte the shell wrote, in order, as text. */
  raw = '';
  exited = false;

  private constructor(
    readonly terminal: Terminal,
    readonly index: CommandIndex,
    readonly conn: HolderConnection,
  ) {}

  static async start(scope: TestScope, options: IntegratedShellOptions): Promise<IntegratedShellSession> {
    const { home } = options;
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
    };
    const launch = injectShellIntegration([options.shellPath, ...(options.args ?? [])], env, join(home, '.tend-integration'));
    const cols = options.cols ?? 100;
    const rows = options.rows ?? 30;
    const socketPath = join(scope.tempDir('tend-si-sock-'), 'h.sock');
    const started = await spawnHolder({ socketPath, cols, rows, cwd: home, env: launch.env, argv: launch.argv });
    scope.trackPid(started.holderPid);
    scope.trackPid(started.childPid);

    const terminal = new HeadlessTerminal({ cols, rows, scrollback: 5000, allowProposedApi: true });
    scope.own(terminal);
    const index = scope.own(new CommandIndex(terminal));
    const conn = scope.own(await HolderConnection.connect(socketPath, { timeoutMs: 10_000 }));
    await waitFor(async () => (await conn.acquire()) === 'acquired', { what: 'the controller lease' });
    const session = new IntegratedShellSession(terminal, index, conn);
    const decoder = new TextDecoder();
    const take = (bytes: Uint8Array): void => {
      session.raw += decoder.decode(bytes, { stream: true });
      terminal.write(bytes);
    };
    conn.onReplay((e) => take(e.bytes));
    conn.onOutput((e) => take(e.bytes));
    conn.onExit(() => (session.exited = true));
    // Answers to the shell's terminal queries (cursor position, device
    // attributes) go back to it, as a real terminal's would.
    terminal.onData((data) => {
      if (!conn.isClosed) conn.input(data);
    });
    void conn.dumpSince(0);
    await session.waitForPrompt();
    return session;
  }

  waitForPrompt(): Promise<true> {
    return waitFor(() => this.index.atPrompt, {
      what: 'the shell prompt (a B mark)',
      describe: () => `screen: ${JSON.stringify(this.screenText())}; raw tail: ${JSON.stringify(this.raw.slice(-300))}`,
    });
  }

  /** Types the line and Enter at a prompt, and resolves with the command once its D has arrived and the next prompt is up. */
  async run(line: string): Promise<IndexedCommand> {
    await this.waitForPrompt();
    const before = this.index.last()?.number ?? 0;
    this.conn.input(line + '\r');
    const command = await waitFor(
      () => {
        const last = this.index.last();
        return last !== undefined && last.number > before && last.endedAt !== null ? last : null;
      },
      {
        what: `the end of ${JSON.stringify(line)}`,
        describe: () => `screen: ${JSON.stringify(this.screenText())}; raw tail: ${JSON.stringify(this.raw.slice(-300))}`,
      },
    );
    await this.waitForPrompt();
    return command;
  }

  /** The screen and scrollback as text, rows trimmed. */
  screenText(): string {
    const buffer = this.terminal.buffer.normal;
    const rows: string[] = [];
    for (let i = 0; i < buffer.length; i++) rows.push(buffer.getLine(i)?.translateToString(true) ?? '');
    return rows.join('\n').replace(/\n+$/, '');
  }

  /** How many times an OSC payload prefix occurs in what the shell wrote. */
  countMarks(payloadPrefix: string): number {
    return this.raw.split(`\x1b]${payloadPrefix}`).length - 1;
  }
}

/** Appends to a file the test's shell reads (user rc files). */
export function appendLines(path: string, ...lines: string[]): void {
  appendFileSync(path, lines.join('\n') + '\n');
}
