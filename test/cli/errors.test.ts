// The CLI's paper cuts, end to end: the real `bin/tend.js` against a real
// server in its own TEND_HOME. A mistake on the command line is said in the
// verb's words (the option the user typed, never an API field), once
// prefixed, with the usage line; unknown verbs and options suggest the
// nearest; with --json every error is one JSON object on stderr carrying the
// API's code; and the exit statuses are the ones `--help` lists.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, waitFor, type CliResult, type TestServer } from '../server/harness.js';

const SUITE_TIMEOUT_MS = 120_000;

let t: TestServer;

before(async () => {
  t = startTestServer();
});

after(async () => {
  await t.dispose();
});

/**
 * A usage error: exit 2, nothing on stdout, one `tend: ` line saying `said`,
 * then the verb's usage line when `usage` is given (an error in the shape of
 * the command line), or nothing more when it is null (a value the verb refused).
 */
function assertUsageError(r: CliResult, said: RegExp, usage: string | null = null): void {
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, '');
  const [first, second, ...more] = r.stderr.trimEnd().split('\n');
  assert.match(first!, /^tend: /);
  assert.doesNotMatch(first!, /^tend: tend\b/, 'prefixed once');
  assert.match(first!, said);
  if (usage !== null) assert.equal(second, `usage: ${usage}`);
  else assert.equal(second, undefined, r.stderr);
  assert.deepEqual(more, []);
}

const SCREEN_USAGE = 'tend screen TARGET [--ansi] [--scrollback N] [--json]';
const REVIVE_USAGE = 'tend revive TARGET [--json] [-- CMD ARGS...]';

/** The one JSON error object on stderr. */
function jsonError(r: CliResult): { code: string; message: string; candidates?: string[]; [k: string]: unknown } {
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  const parsed = JSON.parse(lines[0]!) as { error: { code: string; message: string } };
  assert.equal(typeof parsed.error.code, 'string');
  assert.equal(typeof parsed.error.message, 'string');
  return parsed.error;
}

async function sessionCount(): Promise<number> {
  const r = await t.cli(['ls', '--json']);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as unknown[]).length;
}

describe('tend on the command line', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('an unknown verb suggests the nearest one, transpositions and all', async () => {
    assertUsageError(await t.cli(['atach']), /^tend: no verb "atach" \(did you mean attach\?\)/);
    assertUsageError(await t.cli(['sned', ':x', 'hi']), /\(did you mean send\?\)/);
    const far = await t.cli(['zzzzzz']);
    assertUsageError(far, /^tend: no verb "zzzzzz"; `tend help` lists them$/);
    assertUsageError(await t.cli(['help', 'atach']), /^tend: no verb "atach" \(did you mean attach\?\)/);
    const json = await t.cli(['atach', '--json']);
    assert.equal(json.code, 2);
    assert.deepEqual(jsonError(json), { code: 'usage', message: 'no verb "atach" (did you mean attach?); `tend help` lists them', candidates: ['attach'] });
    assert.equal(t.serverPid(), null, 'no server was started for a command line that is wrong');
  });

  test("an unknown option is the verb's usage error, with the nearest option", async () => {
    const r = await t.cli(['new', '--bogus-flag']);
    assertUsageError(r, /^tend: unknown option --bogus-flag$/, 'tend new [--name N] [--cwd DIR] [--size COLSxROWS] [--term TERM] [--env NAME=VALUE]... [--workspace W] [--json] [-- CMD ARGS...]');
    assert.doesNotMatch(r.stderr, /To specify a positional argument|ERR_PARSE_ARGS/, 'not the argument parser\'s words');
    assertUsageError(await t.cli(['ls', '--jsn']), /^tend: unknown option --jsn \(did you mean --json\?\)$/, 'tend ls [--json]');
    const near = await t.cli(['ls', '--jsn', '--json']);
    assert.equal(near.code, 2);
    assert.deepEqual(jsonError(near).candidates, ['--json']);
    // An option after a command's words is the command's: said where it goes.
    assertUsageError(await t.cli(['split', ':x', 'vim', '-u', 'NONE']),
      /^tend: unknown option -u: CMD ARGS\.\.\. go after --, as in `tend split :x -- vim -u NONE`$/,
      'tend split TARGET [--right | --down] [--name N] [--cwd DIR] [--json] [-- CMD ARGS...]');
    assertUsageError(await t.cli(['screen', ':x', '--ansi=yes']), /^tend: --ansi takes no value \(given "yes"\)$/, SCREEN_USAGE);
    assertUsageError(await t.cli(['new', '--size']), /^tend: --size needs a value$/, 'tend new [--name N] [--cwd DIR] [--size COLSxROWS] [--term TERM] [--env NAME=VALUE]... [--workspace W] [--json] [-- CMD ARGS...]');
    assert.equal(t.serverPid(), null);
  });

  test("an option's value that starts with a dash reaches the verb, which says what is wrong with it", async () => {
    assertUsageError(await t.cli(['await', '--timeout', '-1']), /^tend: --timeout takes seconds \(e\.g\. 30 or 0\.5\), not "-1"$/);
    assertUsageError(await t.cli(['await', ':x', '-t', '-1', '--', 'true']), /^tend: --timeout takes seconds/);
  });

  test('a missing or extra word is refused before anything is asked, naming what', async () => {
    assertUsageError(await t.cli(['kill']), /^tend: missing TARGET \(a session: its id, :name, or index from `tend ls`\)$/, 'tend kill TARGET... [--json]');
    assertUsageError(await t.cli(['rename', ':x']), /^tend: missing NAME$/, 'tend rename TARGET NAME [--json]');
    assertUsageError(await t.cli(['ls', 'extra']), /^tend: unexpected argument "extra"$/, 'tend ls [--json]');
    assertUsageError(await t.cli(['screen', ':x', 'extra']), /^tend: unexpected argument "extra"$/, SCREEN_USAGE);
    assertUsageError(await t.cli(['commands', ':x', 'extra']), /^tend: unexpected argument "extra"$/, 'tend commands TARGET [--json]');
    assertUsageError(await t.cli(['revive', ':x', '-n']), /^tend: unknown option -n$/, REVIVE_USAGE);
    assertUsageError(await t.cli(['revive', ':x', 'vim', '-n']), /^tend: unknown option -n: CMD ARGS\.\.\. go after --, as in `tend revive :x -- vim -n`$/, REVIVE_USAGE);
    assertUsageError(await t.cli(['revive', ':x', 'vim']), /^tend: unexpected argument "vim": put CMD ARGS\.\.\. after --, as in `tend revive :x -- vim`$/, REVIVE_USAGE);
    assertUsageError(await t.cli(['attach']), /^tend: missing TARGET/, 'tend attach TARGET [--read-only] [--detach-key KEY] [--json]');
    assertUsageError(await t.cli(['open', ':x', 'extra']), /^tend: unexpected argument "extra"$/, 'tend open [TARGET] [--app] [--print] [--json]');
    assertUsageError(await t.cli(['logs', 'extra']), /^tend: unexpected argument "extra"$/, 'tend logs [--lines N] [--follow] [--json]');
    assertUsageError(await t.cli(['completion']), /^tend: missing SHELL: bash, zsh, fish$/);
    assertUsageError(await t.cli(['send', ':x']), /^tend: nothing to send: give TEXT, --keys K, --enter or --stdin$/);
    assertUsageError(await t.cli(['send', ':x', '']), /^tend: nothing to send/);
    assertUsageError(await t.cli(['server', 'stat']), /^tend: no action "stat" \(did you mean start\?\); server takes start, stop, restart or status$/);
    assert.equal(t.serverPid(), null);
  });

  test('values are checked against the API limits and named by the option typed, never by an API field', async () => {
    const created = await t.cli(['new', '--name', 'target', '--', 'sleep', '600']);
    assert.equal(created.code, 0, created.stderr);
    await t.holderPids();
    const cases: Array<[string[], RegExp]> = [
      [['new', '--size', '5000x5000', '--', 'true'], /^tend: --size 5000x5000: columns and rows must each be from 1 to 1000$/],
      [['new', '--size', '0x24', '--', 'true'], /^tend: --size 0x24: /],
      [['new', '--name', 'bad name', '--', 'true'], /^tend: --name "bad name" cannot be a name: a name is 1-64 letters/],
      [['new', '--term', 'bad term', '--', 'true'], /^tend: --term "bad term" is not a terminal type/],
      [['new', '--env', 'TERM=bad term', '--', 'true'], /^tend: --env TERM "bad term" is not a terminal type/],
      [['new', '--cwd', '/no/such/dir', '--', 'true'], /^tend: --cwd \/no\/such\/dir: the directory does not exist$/],
      [['split', ':target', '--name', 'bad name'], /^tend: --name "bad name" cannot be a name/],
      [['rename', ':target', 'bad name'], /^tend: NAME "bad name" cannot be a name/],
      [['search', ':target', 'x'.repeat(1001)], /^tend: TEXT is 1001 characters; tend searches for at most 1000$/],
      [['search', ':target', '(', '--regex'], /^tend: TEXT is not a regular expression \(--regex\): /],
      [['search', ':target', 'x', '--max', '20000'], /^tend: --max takes a number of matches from 1 to 10000, not "20000"$/],
      [['screen', ':target', '--scrollback', '2000000'], /^tend: --scrollback takes a number of rows from 0 to 1000000, not "2000000"$/],
      [['output', ':target', '--cmd', '99999999999999999999'], /^tend: --cmd takes a command number from `tend commands`, not "99999999999999999999"$/],
      [['new', '--', 'echo', ...Array.from({ length: 4096 }, (_, i) => String(i))], /^tend: the command has 4097 words; a session's command has at most 4096$/],
      [['await', '--resume', 'bogus'], /^tend: --resume takes the id `tend await` printed/],
      [['await', ':target', '--', ' '], /^tend: missing INPUT/],
    ];
    for (const [args, said] of cases) {
      const r = await t.cli(args);
      assertUsageError(r, said);
      // The API's field names, as the server words them: "cols", "q", "max", "name", "term", "input"…
      assert.doesNotMatch(r.stderr, /"(cols|rows|q|max|scrollback|name|term|env\.TERM|cwd|input|id|cmd|argv)"/, `${args.join(' ')}: ${r.stderr}`);
    }
    assert.equal(await sessionCount(), 1, 'nothing was started by a refused command');
  });

  test('a refused --workspace leaves no session behind', async () => {
    const before = await sessionCount();
    assertUsageError(await t.cli(['new', '--workspace', 'bad ws', '--', 'true']), /^tend: --workspace "bad ws" cannot be a name/);
    assert.equal(await sessionCount(), before);
  });

  test("with --json an error the server answered is its error object on stderr, with the API's code and candidates", async () => {
    const r = await t.cli(['kill', ':targte', '--json']);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, '');
    const error = jsonError(r);
    assert.equal(error.code, 'no_session');
    assert.match(error.message, /:targte/);
    assert.ok(Array.isArray(error.candidates), 'candidates passed through');
    assert.ok(error.candidates!.some((c) => c.includes('target')), JSON.stringify(error));

    const plain = await t.cli(['kill', ':targte']);
    assert.equal(plain.code, 1);
    assert.match(plain.stderr, /^tend: no session is named ":targte"/);
    assert.doesNotMatch(plain.stderr, /^\{/);

    const usage = await t.cli(['ls', 'extra', '--json']);
    assert.equal(usage.code, 2);
    const said = jsonError(usage);
    assert.equal(said.code, 'usage');
    assert.equal(said.message, 'unexpected argument "extra"');
    assert.equal(said.usage, 'tend ls [--json]');

    const bad = await t.cli(['new', '--size', '5000x5000', '--json']);
    assert.equal(bad.code, 2);
    assert.equal(jsonError(bad).code, 'usage');
  });

  test('words after -- are operands for a verb that gives -- no use of its own', async () => {
    const created = await t.cli(['new', '--name', 'echo', '--', 'cat']);
    assert.equal(created.code, 0, created.stderr);
    await t.holderPids();
    const sent = await t.cli(['send', ':echo', '--', '-n', 'dashed', '--enter']);
    assert.equal(sent.code, 0, sent.stderr);
    await waitFor('the dashed text on the screen', async () => (await t.cli(['screen', ':echo'])).stdout.includes('-n dashed --enter'));
  });

  test('the exit statuses are listed in `tend help` and in each verb\'s --help', async () => {
    const help = await t.cli(['help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Exit status:\n {2}0 {4}done\n {2}1 {4}failed: .*\n {2}2 {4}the command line is wrong; nothing was done\n {2}76 {3}the server is a tend this one cannot talk to; .*\n {2}141 {2}/);
    assert.match(help.stdout, /"error": \{"code", "message", "candidates"\?/);
    const awaitHelp = await t.cli(['await', '--help']);
    assert.equal(awaitHelp.code, 0);
    assert.match(awaitHelp.stdout, /Exit status:\n(.*\n)* {2}124 +still running after --timeout S; nothing was cancelled\n/);
    const searchHelp = await t.cli(['help', 'search']);
    assert.match(searchHelp.stdout, /\n {2}1 +nothing matched \(as grep\)/);
  });
});

describe('tend kill', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('looks every target up before it ends any: indexes do not shift under it, and a misspelt one ends nothing', async () => {
    const names = ['kill-a', 'kill-b', 'kill-c'];
    for (const name of names) assert.equal((await t.cli(['new', '--name', name, '--', 'sleep', '600'])).code, 0);
    await t.holderPids();
    const listed = async () => (JSON.parse((await t.cli(['ls', '--json'])).stdout) as Array<{ index: number; name: string }>);
    const before = await listed();
    const missed = await t.cli(['kill', ':kill-a', ':kill-x']);
    assert.equal(missed.code, 1);
    assert.equal(missed.stdout, '');
    assert.deepEqual((await listed()).map((s) => s.name), before.map((s) => s.name), 'nothing was killed');
    const [a, b] = [before.find((s) => s.name === 'kill-a')!, before.find((s) => s.name === 'kill-b')!];
    const killed = await t.cli(['kill', String(a.index), String(b.index)]);
    assert.equal(killed.code, 0, killed.stderr);
    assert.match(killed.stdout, /^killed :kill-a \(\w+\)\nkilled :kill-b \(\w+\)\n$/);
    const left = (await listed()).map((s) => s.name);
    assert.ok(left.includes('kill-c') && !left.includes('kill-a') && !left.includes('kill-b'), left.join(' '));
  });
});

describe('tend ls', { timeout: SUITE_TIMEOUT_MS }, () => {
  test('shows the command each session runs, shortened to fit, and --json keeps the whole argv', async () => {
    const long = ['sh', '-c', `sleep 600 # ${'a'.repeat(60)}`];
    const created = await t.cli(['new', '--name', 'long', '--', ...long]);
    assert.equal(created.code, 0, created.stderr);
    await t.holderPids();
    const ls = await t.cli(['ls']);
    assert.equal(ls.code, 0, ls.stderr);
    const [head, ...rows] = ls.stdout.trimEnd().split('\n');
    assert.match(head!, /\bCOMMAND\b/);
    const at = head!.indexOf('COMMAND');
    const row = rows.find((r) => r.includes(' long '))!;
    assert.ok(row, ls.stdout);
    // Piped, the command is capped at 40 characters with the cut marked; a `sh -c LINE` shows as LINE (as on the dashboard).
    assert.equal(row.slice(at, at + 40), `sleep 600 # ${'a'.repeat(27)}…`);
    const target = rows.find((r) => r.includes(' target '))!;
    assert.equal(target.slice(at, at + 'sleep 600 '.length), 'sleep 600 ');
    const json = await t.cli(['ls', '--json']);
    const listed = (JSON.parse(json.stdout) as Array<{ name: string; argv: string[] }>).find((s) => s.name === 'long');
    assert.deepEqual(listed?.argv, long);
  });
});
