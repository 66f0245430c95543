// The await registry against a real bash on a real PTY (through a holder),
// its output parsed by a headless xterm a CommandIndex watches: the path a
// server session takes, without the server.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { AwaitRegistry, MAX_TYPED_INPUT_BYTES, openAwaitStore, type AwaitEntry, type AwaitOutcome, type AwaitResult, type AwaitSession } from '../../src/server/awaits/index.js';
import { Store } from '../../src/server/store/index.js';
import { watchIndex } from '../../src/server/commands/index.js';
import { DurableInput } from '../../src/server/input/durable-input.js';
import { typingWriter } from '../../src/server/awaits/command-typing.js';
import { IntegratedShellSession, findShell, SHELL_TEST_TIMEOUT_MS } from '../shell-integration/integrated-shell.js';
import { useTestScope, type TestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';

/** The entry's result; fails the test if it is not done. */
function resultOf(entry: AwaitEntry): AwaitResult {
  const outcome: AwaitOutcome = entry.outcome;
  assert.equal(outcome.state, 'done', `await ${entry.id} is ${outcome.state}`);
  return (outcome as Extract<AwaitOutcome, { state: 'done' }>).result;
}

/** Starts an await the way the API does: at the prompt, bound past the last command. */
function startAwait(awaits: AwaitRegistry, target: AwaitSession, shell: IntegratedShellSession, input: string): Promise<AwaitEntry> {
  return awaits.start(target, watchIndex(shell.index), input, { afterNumber: shell.index.last()?.number ?? 0 });
}

const quietLog = { info() {}, warn() {}, error() {} };
const bash = findShell('bash');

async function bashWithRegistry(scope: TestScope, rows = 30) {
  const home = scope.tempDir('tend-await-home-');
  const shell = await IntegratedShellSession.start(scope, { shell: 'bash', shellPath: bash!, home, rows });
  const stagingDir = join(scope.tempDir('tend-await-rt-'), 'await');
  const awaits = scope.own(new AwaitRegistry({ stagingDir, log: quietLog as never }));
  const input = scope.own(new DurableInput(shell.conn));
  const target: AwaitSession = {
    id: 'a1234567',
    label: 'a1234567',
    inputAt: (writer, at, bytes) => input.write(writer, at, bytes),
    inputTaken: (writer) => input.takenBy(writer),
    isLive: () => !shell.exited && !shell.conn.isClosed,
    onOutput: (listener) => shell.conn.onOutput((e) => listener(e.bytes)),
  };
  return { shell, awaits, target, stagingDir };
}

describe('await registry with a real bash', { timeout: SHELL_TEST_TIMEOUT_MS, skip: bash === null ? 'bash is not installed' : false }, () => {
  test('settles with the exit code and exact output at the end mark, for 0 and non-zero', async (t) => {
    const scope = useTestScope(t);
    const { shell, awaits, target } = await bashWithRegistry(scope);
    const ok = await startAwait(awaits, target, shell, "printf 'one\\ntwo\\n'");
    assert.equal(await ok.wait(30_000), true);
    const okResult = resultOf(ok);
    assert.equal(okResult.exitCode, 0);
    assert.equal(okResult.output, 'one\ntwo\n');
    assert.equal(okResult.command.commandLine, "printf 'one\\ntwo\\n'");

    await shell.waitForPrompt();
    const bad = await startAwait(awaits, target, shell, 'echo failing; (exit 7)');
    assert.equal(await bad.wait(30_000), true);
    assert.deepEqual([resultOf(bad).exitCode, resultOf(bad).output], [7, 'failing\n']);
    assert.notEqual(awaits.get(ok.id), undefined, 'results stay collectable after settling');
  });

  test('a command that prints nothing gives empty output, not null', async (t) => {
    const scope = useTestScope(t);
    const { shell, awaits, target } = await bashWithRegistry(scope);
    const entry = await startAwait(awaits, target, shell, 'true');
    assert.equal(await entry.wait(30_000), true);
    assert.deepEqual([resultOf(entry).exitCode, resultOf(entry).output], [0, '']);
  });

  test('a wait that runs out leaves the await pending, and it settles later', async (t) => {
    const scope = useTestScope(t);
    const { shell, awaits, target } = await bashWithRegistry(scope);
    const marker = join(scope.tempDir('tend-await-gate-'), 'go');
    // The command ends only once the test creates the file: no timing involved.
    const entry = await startAwait(awaits, target, shell, `while [ ! -e ${marker} ]; do sleep 0.05; done; echo released`);
    assert.equal(await entry.wait(200), false);
    assert.equal(entry.outcome.state, 'pending');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(marker, '');
    assert.equal(await entry.wait(30_000), true);
    assert.deepEqual([resultOf(entry).exitCode, resultOf(entry).output], [0, 'released\n']);
  });

  test(`input over ${MAX_TYPED_INPUT_BYTES} bytes or over several lines runs as one command from a staged script, removed after`, async (t) => {
    const scope = useTestScope(t);
    const { shell, awaits, target, stagingDir } = await bashWithRegistry(scope);
    const long = `echo ${'x'.repeat(1500)} | wc -c`;
    const entry = await startAwait(awaits, target, shell, long);
    assert.equal(await entry.wait(30_000), true);
    assert.deepEqual([resultOf(entry).exitCode, resultOf(entry).output?.trim()], [0, '1501']);
    await shell.waitForPrompt();
    const multi = await startAwait(awaits, target, shell, 'echo first\necho second\nfalse');
    assert.equal(await multi.wait(30_000), true);
    assert.deepEqual([resultOf(multi).exitCode, resultOf(multi).output], [1, 'first\nsecond\n']);
    assert.equal(shell.index.list().length, 2, 'each await was one command');
    assert.deepEqual(existsSync(stagingDir) ? readdirSync(stagingDir) : [], [], 'staged scripts are removed once their command ends');
  });

  test('output that scrolled out before the end mark comes back null, never other rows', async (t) => {
    const scope = useTestScope(t);
    const { shell, awaits, target } = await bashWithRegistry(scope);
    // The terminal keeps 5000 rows of scrollback: 8000 lines push the start out.
    const entry = await startAwait(awaits, target, shell, 'seq 1 8000');
    assert.equal(await entry.wait(60_000), true);
    assert.deepEqual([resultOf(entry).exitCode, resultOf(entry).output], [0, null]);
  });

  test('an await whose shell dies settles as failed, naming the session', async (t) => {
    const scope = useTestScope(t);
    const { shell, awaits, target } = await bashWithRegistry(scope);
    const entry = await startAwait(awaits, target, shell, 'sleep 600');
    shell.conn.kill();
    assert.equal(await entry.wait(30_000), true);
    assert.equal(entry.outcome.state, 'failed');
    assert.match(entry.outcome.state === 'failed' ? entry.outcome.message : '', /session a1234567 ended before the command finished/);
  });

  test('a registry on the same store takes up a pending await whose command ended while no registry watched', async (t) => {
    const scope = useTestScope(t);
    const { shell, target, stagingDir } = await bashWithRegistry(scope);
    const store = scope.own(Store.open({ dir: scope.tempDir('tend-await-store-') }));
    const awaitStore = openAwaitStore(store.database, { readOnly: false });
    const gate = join(scope.tempDir('tend-await-gate-'), 'go');
    const line = `until [ -e ${gate} ]; do sleep 0.05; done; echo after-restart; (exit 4)`;

    const before = new AwaitRegistry({ stagingDir, log: quietLog as never, store: awaitStore });
    const entry = await startAwait(before, target, shell, line);
    await waitFor(() => shell.index.current()?.commandLine === line, { what: 'the command to run' });
    before.dispose(); // the server goes away; the command runs on

    const { writeFileSync } = await import('node:fs');
    writeFileSync(gate, '');
    await shell.waitForPrompt();
    assert.equal(shell.index.last()?.endedAt !== null, true, 'the command ended with no registry watching');

    const after = scope.own(new AwaitRegistry({ stagingDir, log: quietLog as never, store: awaitStore }));
    await after.restore((id) => (id === target.id ? { session: target, commands: watchIndex(shell.index) } : undefined));
    const restored = after.get(entry.id);
    assert.notEqual(restored, undefined);
    assert.deepEqual([resultOf(restored!).exitCode, resultOf(restored!).output, resultOf(restored!).command.commandLine], [4, 'after-restart\n', line]);

    // The settled result stays collectable from the next registry too (its session is not even needed).
    const third = scope.own(new AwaitRegistry({ stagingDir, log: quietLog as never, store: awaitStore }));
    await third.restore(() => undefined);
    assert.equal(resultOf(third.get(entry.id)!).exitCode, 4);
  });

  test('a pending await whose typing a crash cut short is finished by the next registry, each byte once', async (t) => {
    const scope = useTestScope(t);
    const { shell, target, stagingDir } = await bashWithRegistry(scope);
    const store = scope.own(Store.open({ dir: scope.tempDir('tend-await-store-') }));
    const awaitStore = openAwaitStore(store.database, { readOnly: false });
    // What a server killed mid-typing leaves: the await saved, part of its line with the holder, no Enter.
    const id = 'w0123456789ab';
    const line = 'echo finished-$((6*7)); (exit 3)';
    awaitStore.insert({ id, sessionId: target.id, typedLine: line, afterNumber: shell.index.last()?.number ?? 0, createdAt: Date.now(), typedAt: null, outcome: null, settledAt: null });
    const cut = Buffer.from(line).subarray(0, 12);
    assert.equal(await target.inputAt(typingWriter(id), 0, cut), cut.length);

    const after = scope.own(new AwaitRegistry({ stagingDir, log: quietLog as never, store: awaitStore }));
    await after.restore((sessionId) => (sessionId === target.id ? { session: target, commands: watchIndex(shell.index) } : undefined));
    const restored = after.get(id)!;
    assert.equal(await restored.wait(30_000), true);
    assert.deepEqual([resultOf(restored).exitCode, resultOf(restored).output, resultOf(restored).command.commandLine], [3, 'finished-42\n', line]);
    assert.notEqual(awaitStore.list().find((a) => a.id === id)?.typedAt ?? null, null, 'marked typed: no later server types it again');
  });

  test('a line the shell ends without starting a command (a builtin read it) settles as input_not_run at once', async (t) => {
    const scope = useTestScope(t);
    const { shell, awaits, target } = await bashWithRegistry(scope);
    // A builtin read behind a fake prompt: the checks pass, the read takes the line, and the shell's next end mark has no command of its own.
    await shell.run("printf '\\033]133;A\\007\\033]133;B\\007'; read -r eaten");
    const entry = await startAwait(awaits, target, shell, 'echo mine');
    assert.equal(await entry.wait(30_000), true, 'settled with nothing else typed');
    assert.equal(entry.outcome.state, 'failed');
    assert.match(entry.outcome.state === 'failed' ? `${entry.outcome.code}: ${entry.outcome.message}` : '', /^input_not_run: .*without starting a command for it, so nothing ran/);
    assert.equal(shell.index.list().length, 1, 'nothing ran for the line');
  });

  test('a line typed while another command had just started goes to it: input_not_run naming that command, never its result', async (t) => {
    const scope = useTestScope(t);
    const { shell, awaits, target } = await bashWithRegistry(scope);
    // The race a check at the prompt cannot close: `cat` typed just before, its start mark not yet seen at the check.
    const afterNumber = shell.index.last()?.number ?? 0;
    shell.conn.input('cat\r');
    await waitFor(() => shell.index.current()?.commandLine === 'cat', { what: 'cat to start' });
    const entry = await awaits.start(target, watchIndex(shell.index), 'echo mine', { afterNumber });
    await waitFor(() => shell.raw.split('echo mine').length - 1 === 2, { what: 'cat to read and print the line' });
    shell.conn.input('\x03');
    assert.equal(await entry.wait(30_000), true);
    assert.equal(entry.outcome.state, 'failed');
    assert.match(entry.outcome.state === 'failed' ? `${entry.outcome.code}: ${entry.outcome.message}` : '', /^input_not_run: .*is command 1 \(`cat`\)/);
  });
});
