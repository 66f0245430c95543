// Runs a service manager's command (systemctl, loginctl, launchctl) and keeps
// what it said, so that a failure becomes one line a person can act on.
import { execFile } from 'node:child_process';

/** A manager's command answers within this or is treated as failed (a hung bus). */
const TOOL_TIMEOUT_MS = 30_000;

export interface ToolResult {
  ok: boolean;
  /** The program is not installed at all. */
  missing: boolean;
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runTool(program: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<ToolResult> {
  return new Promise((resolve) => {
    execFile(program, args, { env, timeout: TOOL_TIMEOUT_MS, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err === null) return resolve({ ok: true, missing: false, code: 0, stdout, stderr });
      const code = (err as NodeJS.ErrnoException).code;
      resolve({ ok: false, missing: code === 'ENOENT', code: typeof code === 'number' ? code : null, stdout: stdout ?? '', stderr: stderr ?? (err as Error).message });
    });
  });
}

/** `systemctl --user start x: Failed to … (exit 1)`: the command and the first line it said. */
export function toolFailure(program: string, args: string[], result: ToolResult): string {
  if (result.missing) return `${program} is not installed`;
  const said = `${result.stderr}\n${result.stdout}`.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  const status = result.code !== null ? `exit ${result.code}` : 'failed';
  return `${[program, ...args].join(' ')}: ${said === '' ? status : `${said} (${status})`}`;
}
