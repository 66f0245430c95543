// A server socket that answers nothing (another program holds it, a server
// dying as it accepts): the CLI says it cannot talk to the server, in one
// line, or with --json as the CLI's own code server_unreachable, exit 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { TendClient } from '../../src/cli/client.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { repoRoot } from '../server/harness.js';

const TEST_TIMEOUT_MS = 60_000;

function tend(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(repoRoot, 'bin', 'tend.js'), ...args], { env, timeout: TEST_TIMEOUT_MS }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? -1) : 0, stdout, stderr });
    });
  });
}

test('a socket that drops every connection is server_unreachable, exit 1, one line or one JSON object', { timeout: TEST_TIMEOUT_MS }, async () => {
  const home = makeTempDir('tend-unreach-');
  const runtime = makeTempDir('tend-unreach-rt-');
  const env: NodeJS.ProcessEnv = { ...process.env, TEND_HOME: home, TEND_RUNTIME_DIR: runtime, TEND_PORT: '0' };
  const socketPath = new TendClient(env).paths.serverSocket;
  const dropper = createServer((socket: Socket) => socket.destroy());
  await new Promise<void>((resolve) => dropper.listen(socketPath, resolve));
  try {
    const plain = await tend(['ls'], env);
    assert.equal(plain.code, 1, plain.stderr);
    assert.match(plain.stderr, /^tend: cannot talk to the tend server: .+\n$/);
    const json = await tend(['ls', '--json'], env);
    assert.equal(json.code, 1, json.stderr);
    assert.equal(json.stdout, '');
    const error = (JSON.parse(json.stderr) as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'server_unreachable');
    assert.match(error.message, /^cannot talk to the tend server: /);
  } finally {
    await new Promise<void>((resolve) => dropper.close(() => resolve()));
    removeTempDir(home);
    removeTempDir(runtime);
  }
});
