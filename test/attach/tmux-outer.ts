// Debian's tmux as the outer terminal of a test: a tmux server on a socket
// name of the test's own, one window of a fixed size running a command, read
// back with capture-pane (-e keeps the attributes), and killed in the test's
// cleanup by that socket name (never by process name).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { TestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';

export class TmuxOuter {
  private constructor(private readonly socketName: string, private readonly env: NodeJS.ProcessEnv) {}

  static start(scope: TestScope, options: { cols: number; rows: number; command: string; env: NodeJS.ProcessEnv }): TmuxOuter {
    const socketName = `tend-test-${process.pid}-${randomBytes(4).toString('hex')}`;
    const outer = new TmuxOuter(socketName, options.env);
    scope.defer(() => void outer.tmux(['kill-server']));
    const started = outer.tmux(['new-session', '-d', '-x', String(options.cols), '-y', String(options.rows), options.command]);
    if (started.status !== 0) throw new Error(`tmux would not start: ${started.stderr}`);
    return outer;
  }

  tmux(args: string[]): { status: number | null; stdout: string; stderr: string } {
    const r = spawnSync('tmux', ['-L', this.socketName, '-f', '/dev/null', ...args], { env: this.env, encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  }

  /** Keys as tmux's send-keys takes them (`-l` for literal text). */
  sendKeys(...keys: string[]): void {
    this.tmux(['send-keys', '-t', '0', ...keys]);
  }

  /** The pane's visible rows with their attributes as SGR (capture-pane -e). */
  screen(): string[] {
    return this.tmux(['capture-pane', '-e', '-p', '-t', '0']).stdout.replace(/\n$/, '').split('\n');
  }

  async waitForScreen(what: string, check: (plain: string[]) => boolean, timeoutMs = 30_000): Promise<void> {
    const plain = () => this.tmux(['capture-pane', '-p', '-t', '0']).stdout.replace(/\n$/, '').split('\n');
    await waitFor(() => check(plain()), { what, timeoutMs, describe: () => `tmux pane:\n${plain().join('\n')}` });
  }
}
