// `tend await` types only at the shell's prompt and is bound to the command
// its input starts: a real server, real bash with tend's integration, the real CLI.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../server/harness.js';
import { CONTROL_TEST_TIMEOUT_MS, type ControlServer, commandsOf, withServer } from './control-server.js';

/** Occurrences of `text` in the session's screen and scrollback. */
async function countOnScreen(s: ControlServer, target: string, text: string): Promise<number> {
  const r = await s.cli(['screen', target, '--scrollback', '1000']);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.split(text).length - 1;
}

describe('tend await is bound to its own command', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('a shell running `cat` is refused up front with 409 shell_busy naming it, and nothing is typed into cat', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'sv' });
      const sent = await s.cli(['send', ':sv', '--enter', 'cat']);
      assert.equal(sent.code, 0, sent.stderr);
      await waitFor('cat to run', async () => (await commandsOf(s, ':sv')).some((c) => c.commandLine === 'cat' && c.running));

      const api = await s.longCall('POST', '/v1/sessions/%3Asv/await', { input: 'echo typed-$((40+2))', timeoutMs: 2000 });
      assert.equal(api.status, 409);
      assert.equal(api.body.error.code, 'shell_busy');
      assert.match(api.body.error.message, /running command 1 \(`cat`\) \(the terminal's foreground process is `cat` \(process group \d+\), not the shell\).*Nothing was typed/);

      const cli = await s.cli(['await', ':sv', '--timeout', '2', '--', 'echo typed-$((40+2))']);
      assert.equal(cli.code, 1);
      assert.match(cli.stderr, /^tend: session :sv is running command 1 \(`cat`\) .*, so its shell is not at its prompt/);
      assert.equal(await countOnScreen(s, ':sv', 'typed-'), 0, 'cat was given nothing');

      // Once cat is gone the same await runs.
      await s.cli(['send', ':sv', '--keys', 'C-c']);
      await waitFor('cat to end', async () => (await commandsOf(s, ':sv')).every((c) => !c.running));
      const ok = await s.cli(['await', ':sv', '--', 'echo typed-$((40+2))']);
      assert.deepEqual([ok.code, ok.stdout], [0, 'typed-42\n']);
    }));

  test('a program that prints prompt marks but holds the terminal is refused, naming the program', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'sv' });
      // awk draws a fake prompt (A, B marks: the index then reads "at the prompt") and reads the terminal.
      const fake = `awk 'BEGIN { printf "\\033]133;A\\007fake$ \\033]133;B\\007"; fflush(); while ((getline l) > 0) print "awk-read:" l }'`;
      const sent = await s.cli(['send', ':sv', '--enter', fake]);
      assert.equal(sent.code, 0, sent.stderr);
      await waitFor('the fake prompt', async () => /fake\$ ?$/m.test(await s.screen(':sv')));
      await waitFor('the index to take the fake prompt as a prompt', async () => (await commandsOf(s, ':sv')).every((c) => !c.running));

      const api = await s.longCall('POST', '/v1/sessions/%3Asv/await', { input: 'echo not-for-awk', timeoutMs: 2000 });
      assert.equal(api.status, 409, JSON.stringify(api.body));
      assert.equal(api.body.error.code, 'shell_busy');
      assert.match(api.body.error.message, /terminal is held by `\w*awk` \(process group \d+\), not by its shell/);
      assert.equal(await countOnScreen(s, ':sv', 'not-for-awk'), 0, 'awk was given nothing');
    }));

  test('input read by something else: --resume after C-c and another command reports that, not the other command', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'sv' });
      // A builtin loop (the shell itself holds the terminal) behind a fake prompt: every check passes, and the loop eats the input.
      const eater = "printf '\\033]133;A\\007eat$ \\033]133;B\\007'; while read -r l; do echo \"ate:$l\"; done";
      await s.cli(['send', ':sv', '--enter', eater]);
      await waitFor('the fake prompt', async () => /eat\$ ?$/m.test(await s.screen(':sv')));
      await waitFor('the index to take the fake prompt as a prompt', async () => (await commandsOf(s, ':sv')).every((c) => !c.running));

      const first = await s.cli(['await', ':sv', '--timeout', '1', '--', 'echo mine']);
      assert.equal(first.code, 124, first.stderr);
      const id = first.stdout.trim();
      await waitFor('the loop to eat the input', async () => (await countOnScreen(s, ':sv', 'ate:echo mine')) === 1);

      await s.cli(['send', ':sv', '--keys', 'C-c']);
      await waitFor('the loop to end at a new prompt', async () => /\^C\n.*[$#] ?\n?$/.test(await s.screen(':sv')));
      const other = await s.cli(['await', ':sv', '--', 'echo other-$((1+1))']);
      assert.deepEqual([other.code, other.stdout], [0, 'other-2\n']);

      const resumed = await s.cli(['await', '--resume', id]);
      assert.equal(resumed.stdout, '', 'not the other command\'s output');
      assert.equal(resumed.code, 1);
      assert.match(resumed.stderr, /^tend: session :sv's shell finished with the typed line without starting a command for it, so nothing ran/);
      const api = await s.api('GET', `/v1/awaits/${id}`);
      assert.equal(api.status, 410);
      assert.equal((api.body as any).error.code, 'input_not_run');
    }));

  test('a line the shell rejects (a syntax error) fails at once: nothing ran, and the next command is not taken for it', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'sv' });
      const rejected = await s.cli(['await', ':sv', '--timeout', '20', '--', 'fi']);
      assert.equal(rejected.code, 1, rejected.stderr);
      assert.match(rejected.stderr, /^tend: session :sv's shell finished with the typed line without starting a command for it, so nothing ran/);
      assert.deepEqual(await commandsOf(s, ':sv'), []);
      const next = await s.cli(['await', ':sv', '--', 'echo next']);
      assert.deepEqual([next.code, next.stdout], [0, 'next\n']);
    }));

  test('two awaits at once in one session: one runs, the other is refused naming it; their lines never mix', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'sv' });
      const gate = join(s.shellHome, 'gate-two');
      const lines = ['one', 'two'].map((word) => `: ${word}; until [ -e ${gate} ]; do sleep 0.05; done; echo ${word}-done`);
      // Whichever reaches the server first runs; the other finds its command running.
      const replies = await Promise.all(lines.map((input) => s.longCall('POST', '/v1/sessions/%3Asv/await', { input, timeoutMs: 0 })));
      assert.deepEqual(replies.map((r) => r.status).sort(), [202, 409], JSON.stringify(replies.map((r) => r.body)));
      const ran = replies.findIndex((r) => r.status === 202);
      const refused = replies[1 - ran]!;
      assert.equal(refused.body.error.code, 'shell_busy');
      assert.ok(refused.body.error.message.includes(`running command 1 (\`${lines[ran]!.slice(0, 20)}`), refused.body.error.message);
      writeFileSync(gate, '');
      const done = await s.longCall('GET', `${replies[ran]!.body.location}?waitMs=30000`);
      assert.deepEqual([done.status, done.body.output], [200, `${ran === 0 ? 'one' : 'two'}-done\n`]);
      assert.deepEqual((await commandsOf(s, ':sv')).map((c) => c.commandLine), [lines[ran]]);
    }));

  test('a second request with the same id answers the first await and types nothing more', () =>
    withServer(async (s) => {
      await s.newShell(['bash'], { name: 'sv' });
      const body = { id: 'w0123456789ab', input: 'echo once-$((2*3))', timeoutMs: 30_000 };
      const first = await s.longCall('POST', '/v1/sessions/%3Asv/await', body);
      assert.deepEqual([first.status, first.body.id, first.body.output], [200, 'w0123456789ab', 'once-6\n']);
      const again = await s.longCall('POST', '/v1/sessions/%3Asv/await', body);
      assert.deepEqual([again.status, again.body.output, again.body.command.number], [200, 'once-6\n', 1]);
      assert.equal((await commandsOf(s, ':sv')).length, 1, 'typed once');
      const bad = await s.longCall('POST', '/v1/sessions/%3Asv/await', { ...body, id: 'nope' });
      assert.equal(bad.status, 400);
    }));
});
