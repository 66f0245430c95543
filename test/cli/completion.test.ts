// `tend completion SHELL`: the generated scripts loaded into the real shells
// (bash and zsh typed into through a real PTY, a tend session; fish asked with
// `complete -C`) offer the verbs, a verb's options, and the names of a real
// server's sessions, which they ask for without ever starting a server.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TendClient } from '../../src/cli/client.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { repoRoot, startTestServer, waitFor, type TestServer } from '../server/harness.js';

const TARGET_NAME = 'completion-target';
/** A shell that answers in more than this is stuck, not slow: each Tab is one Node start at most. */
const SHELL_RUN_TIMEOUT_MS = 60_000;

let t: TestServer;
let dir: string;

before(async () => {
  t = startTestServer();
  dir = makeTempDir('tend-compl-');
  const created = await t.cli(['new', '--name', TARGET_NAME, '--', 'cat']);
  assert.equal(created.code, 0, created.stderr);
  await t.holderPids();
});

after(async () => {
  await t.dispose();
  removeTempDir(dir);
});

/** The script `tend completion SHELL` prints, saved to a file the shell can source. */
async function savedScript(shell: string): Promise<string> {
  const r = await t.cli(['completion', shell]);
  assert.equal(r.code, 0, r.stderr);
  const file = join(dir, `tend.${shell}`);
  writeFileSync(file, r.stdout);
  return file;
}

function runShell(program: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(program, args, { env: t.env, timeout: SHELL_RUN_TIMEOUT_MS }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${program} failed: ${err.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

async function screenOf(target: string): Promise<string> {
  const r = await t.cli(['screen', target]);
  return r.code === 0 ? r.stdout : '';
}

/** Types into a session's shell and waits until its screen shows `expected` (screen lines lose trailing spaces). */
async function typeAndSee(target: string, text: string, keys: string, expected: string): Promise<void> {
  const args = ['send', target, ...(text ? [text] : []), ...(keys ? ['--keys', keys] : [])];
  const sent = await t.cli(args);
  assert.equal(sent.code, 0, sent.stderr);
  await waitFor(`"${expected}" on ${target}'s screen`, async () => (await screenOf(target)).includes(expected), 30_000, 100).catch(async (err: Error) => {
    throw new Error(`${err.message}; the screen:\n${await screenOf(target)}`);
  });
}

test('bash: the completion function offers verbs, a verb\'s options, choices, directories, commands after --, and session names', { timeout: 120_000 }, async () => {
  const script = await savedScript('bash');
  mkdirSync(join(dir, 'subdir'));
  writeFileSync(join(dir, 'subfile'), '');
  // Bash calls _tend with COMP_LINE and COMP_POINT set (and COMP_WORDS split at every ':'); so does this.
  const driver = `source "$1"
complete -p tend
offers() {
  COMP_LINE=$1; COMP_POINT=\${#COMP_LINE}; COMP_WORDS=($1); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
  _tend tend
  printf '%s=>' "$1"; printf '%s ' "\${COMPREPLY[@]}"; echo
}
offers 'tend at'
offers 'tend attach --r'
offers 'tend server st'
offers 'tend kill :completion-t'
offers 'tend kill '
offers 'tend new --cwd ${dir}/sub'
offers 'tend new -- printen'
offers 'tend '
`;
  const out = await runShell('bash', ['--norc', '--noprofile', '-c', driver, 'driver', script]);
  assert.match(out, /^complete -F _tend tend$/m, 'the script registers _tend for tend');
  const offered = new Map(out.split('\n').filter((l) => l.includes('=>')).map((l) => {
    const [line, offers] = l.split('=>');
    return [line!, offers!.trim().split(' ').filter((w) => w !== '').sort()];
  }));
  assert.deepEqual(offered.get('tend at'), ['attach']);
  assert.deepEqual(offered.get('tend attach --r'), ['--read-only']);
  assert.deepEqual(offered.get('tend server st'), ['start', 'status', 'stop']);
  // Bash replaces only what follows the ':' (a word break), so that is what is offered.
  assert.deepEqual(offered.get('tend kill :completion-t'), [TARGET_NAME]);
  assert.ok(offered.get('tend kill ')?.includes(`:${TARGET_NAME}`), `a target is offered as :name: ${out}`);
  assert.deepEqual(offered.get(`tend new --cwd ${dir}/sub`), [`${dir}/subdir`], 'only directories for --cwd');
  assert.ok(offered.get('tend new -- printen')?.includes('printenv'), `commands after --: ${out}`);
  for (const verb of ['attach', 'completion', 'logs', 'new', 'help']) assert.ok(offered.get('tend ')?.includes(verb), `verb ${verb}: ${out}`);
});

test('bash: typed into through a PTY, Tab completes a verb and then a session name', { timeout: 120_000 }, async () => {
  const script = await savedScript('bash');
  const shell = 'bash-pty';
  const created = await t.cli(['new', '--name', shell, '--size', '120x30', '--no-shell-integration', '--', 'bash', '--norc', '--noprofile', '-i']);
  assert.equal(created.code, 0, created.stderr);
  await t.holderPids();
  await typeAndSee(`:${shell}`, `PS1='$ '; source ${script}; echo ready-$((6*7))`, 'Enter', 'ready-42');
  await typeAndSee(`:${shell}`, 'tend at', 'Tab', 'tend attach');
  await typeAndSee(`:${shell}`, ':completion-t', 'Tab', `tend attach :${TARGET_NAME}`);
  await typeAndSee(`:${shell}`, '', 'C-u', '$ ');
  await typeAndSee(`:${shell}`, 'tend logs --fol', 'Tab', 'tend logs --follow');
});

test('zsh: with compinit, typed into through a PTY, Tab completes a verb, a session name and an option', { timeout: 120_000 }, async () => {
  const script = await savedScript('zsh');
  const shell = 'zsh-pty';
  const created = await t.cli(['new', '--name', shell, '--size', '120x30', '--no-shell-integration', '--', 'zsh', '-f', '-i']);
  assert.equal(created.code, 0, created.stderr);
  await t.holderPids();
  // compinit -D: no dump file written; -u: the test's directories count as safe.
  await typeAndSee(`:${shell}`, `PROMPT='%% '; autoload -U compinit; compinit -u -D; source ${script}; echo ready-$((6*7))`, 'Enter', 'ready-42');
  await typeAndSee(`:${shell}`, 'tend at', 'Tab', 'tend attach');
  await typeAndSee(`:${shell}`, ':completion-t', 'Tab', `tend attach :${TARGET_NAME}`);
  await typeAndSee(`:${shell}`, ' --read', 'Tab', `tend attach :${TARGET_NAME} --read-only`);
});

test('fish: complete -C offers verbs with their summaries, a verb\'s options, and session names', { timeout: 120_000 }, async () => {
  const script = await savedScript('fish');
  const out = await runShell('fish', ['--no-config', '-c', `source ${script}
for line in 'tend at' 'tend attach --r' 'tend kill :' 'tend server st'
    echo "## $line"
    complete -C "$line"
end`]);
  const offered = new Map<string, string[]>();
  let current = '';
  for (const line of out.split('\n')) {
    if (line.startsWith('## ')) offered.set((current = line.slice(3)), []);
    else if (line !== '') offered.get(current)!.push(line);
  }
  assert.deepEqual(offered.get('tend at'), ['attach\tshow a session in this terminal and type into it']);
  assert.deepEqual(offered.get('tend attach --r'), ['--read-only\twatch without typing or resizing the session']);
  // Every session of this server has a name, so each is offered as :name (the PTY tests' shells too).
  assert.ok(offered.get('tend kill :')?.includes(`:${TARGET_NAME}`), `session names: ${out}`);
  assert.ok(offered.get('tend kill :')?.every((w) => w.startsWith(':')), `session names: ${out}`);
  assert.deepEqual(offered.get('tend server st')?.sort(), ['start', 'status', 'stop']);
});

test('the session list the scripts ask for says nothing and starts no server when none runs', { timeout: 60_000 }, async () => {
  const home = makeTempDir('tend-compl-home-');
  const runtime = makeTempDir('tend-compl-rt-');
  try {
    const env = { ...t.env, TEND_HOME: home, TEND_RUNTIME_DIR: runtime };
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [join(repoRoot, 'bin', 'tend.js'), 'completion', '--list', 'sessions'], { env }, (err, stdout, stderr) =>
        resolve({ code: err ? (err as { code?: number }).code ?? 1 : 0, stdout, stderr }));
    });
    assert.deepEqual(out, { code: 0, stdout: '', stderr: '' });
    const paths = new TendClient(env).paths;
    assert.equal(existsSync(paths.serverSocket), false, 'no server was started');
    assert.equal(existsSync(paths.lockFile), false, 'no server was started');
  } finally {
    removeTempDir(home);
    removeTempDir(runtime);
  }
});

test('a shell tend has no completion for is refused with the ones it has', { timeout: 60_000 }, async () => {
  const r = await t.cli(['completion', 'tcsh']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /no completion for "tcsh"; there is one for bash, zsh, fish/);
});
