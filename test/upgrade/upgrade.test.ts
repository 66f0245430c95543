// `tend upgrade` under load: 20 live sessions (idle shells, a full-screen
// program, two programs writing a long varied stream through it, one of them
// flooding, a ticker with `tend attach` on it in a real PTY, a shell open in a
// browser page) move from this tree's build to another build and back. Every
// screen is what it was, or what the reference terminal fed the same bytes
// shows; every byte arrives once; the attached viewer and the page carry on.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, type TestServer } from '../server/harness.js';
import { diffAgainstReference, serverScreen } from '../server/reference.js';
import { makeOtherBuild } from '../support/other-build.js';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { diffTerminals } from '../support/terminal-diff.js';
import { terminalFromSnapshot } from '../support/terminal-from-snapshot.js';
import { AttachedTerminal } from '../attach/attach-harness.js';
import { browserUnavailable, paneText, socketState, startWebHarness, typeInto, waitForLivePane, waitForSameScreen, SESSION_ENV, BASH } from '../web/web-harness.js';
import type { UpgradeReport } from '../../src/cli/upgrade/run-upgrade.js';

const TEST_TIMEOUT_MS = 240_000;
const SCROLLBACK_ROWS = 2000;
const SHELLS = 15;
const TICKS = 1500;
const writer = join(repoRoot, 'dist', 'test', 'fixtures', 'programs', 'varied-writer.js');
const tui = join(repoRoot, 'dist', 'test', 'fixtures', 'programs', 'tui.js');
const thisBuild = (JSON.parse(readFileSync(join(repoRoot, 'dist', 'build-id.json'), 'utf8')) as { build: string }).build;

interface Listed {
  id: string;
  status: string;
  offset: number;
  exitCode: number | null;
}

async function newSession(server: TestServer, name: string, argv: string[]): Promise<string> {
  const res = await server.api<{ id: string }>('POST', '/v1/sessions', { name, argv, cwd: server.home, cols: 80, rows: 24, env: SESSION_ENV(server.home) });
  if (res.status !== 201) throw new Error(`could not create ${name}: ${JSON.stringify(res.body)}`);
  return res.body.id;
}

async function session(server: TestServer, target: string): Promise<Listed> {
  const res = await server.api<Listed>('GET', `/v1/sessions/${encodeURIComponent(target)}`);
  if (res.status !== 200) throw new Error(`session ${target}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Cell-by-cell differences between two snapshots of a screen, scrollback included. */
async function snapshotDiffs(a: Awaited<ReturnType<typeof serverScreen>>, b: Awaited<ReturnType<typeof serverScreen>>): Promise<string[]> {
  const [ta, tb] = [await terminalFromSnapshot(a), await terminalFromSnapshot(b)];
  try {
    return diffTerminals(ta, tb);
  } finally {
    ta.dispose();
    tb.dispose();
  }
}

async function screenText(server: TestServer, target: string): Promise<string> {
  const res = await server.api<{ text: string }>('GET', `/v1/sessions/${encodeURIComponent(target)}/screen`);
  if (res.status !== 200) throw new Error(`screen of ${target}: ${JSON.stringify(res.body)}`);
  return res.body.text;
}

/** The full-screen program counts SIGWINCH redraws on its status line, and a new server asks it for one. */
function withoutStatusLine(text: string): string {
  return text.split('\n').filter((line) => !line.includes('status: redraws=')).join('\n');
}

/** The report's message and problems, or the output as it is when it is no report. */
function failureWords(stdout: string): string {
  try {
    const report = upgradeReport(stdout);
    return `${report.message} (problems: ${JSON.stringify(report.problems)})`;
  } catch {
    return stdout;
  }
}

function upgradeReport(stdout: string): UpgradeReport {
  return JSON.parse(stdout) as UpgradeReport;
}

/**
 * The tick numbers in the attach's outer terminal, scrollback and screen, top
 * to bottom. Not its raw output: a reconnect may repaint the screen in place
 * (the status line it showed asks for that), which writes the visible rows again.
 */
function ticksShown(attached: AttachedTerminal): number[] {
  const buffer = attached.terminal.buffer.active;
  const ticks: number[] = [];
  for (let y = 0; y < buffer.length; y++) {
    // At the start of its row: the attach's "reconnecting…" status line, drawn on the bottom row,
    // can stay behind a tick written over it and scroll into the history with it.
    const m = /^tick (\d+)/.exec(buffer.getLine(y)?.translateToString(true) ?? '');
    if (m) ticks.push(Number(m[1]));
  }
  return ticks;
}

/** The outer terminal's rows around where the ticks shown first differ from the ticks expected (for a failure's message). */
function aroundFirstDifference(attached: AttachedTerminal, shown: number[], expected: number[]): string {
  const at = expected.findIndex((tick, i) => shown[i] !== tick);
  const last = at > 0 ? expected[at - 1] : null;
  const buffer = attached.terminal.buffer.active;
  const rows: string[] = [];
  for (let y = 0; y < buffer.length; y++) rows.push(buffer.getLine(y)?.translateToString(true) ?? '');
  const y = last === null ? 0 : rows.findIndex((r) => r.trim() === `tick ${last}`);
  return rows.slice(Math.max(0, y - 2), y + 5).map((r, i) => `${Math.max(0, y - 2) + i}: ${JSON.stringify(r)}`).join('\n');
}

describe('tend upgrade with 20 live sessions', { timeout: TEST_TIMEOUT_MS, skip: browserUnavailable() ?? false }, () => {
  test('every screen rides through to the other build and back; no byte lost or doubled; the attached viewer and the page resume', async (t) => {
    const scope = useTestScope(t);
    const t0 = performance.now();
    const mark = (what: string) => t.diagnostic(`${what} at ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const h = await startWebHarness(scope, { env: { TEND_SCROLLBACK_ROWS: String(SCROLLBACK_ROWS) } });
    const server = h.server;
    const other = makeOtherBuild({ dir: join(scope.tempDir('tend-other-'), 'build'), version: '9.2.0' });
    const otherBuild = (JSON.parse(readFileSync(join(other, 'dist', 'build-id.json'), 'utf8')) as { build: string }).build;

    // Two writers whose bytes are also in a file: the reference. One floods (no pauses to speak of).
    const streams = { slow: join(server.home, 'slow.bin'), flood: join(server.home, 'flood.bin') };
    await newSession(server, 'slow', ['sh', '-c', `stty -opost -echo && exec "${process.execPath}" "${writer}" "${streams.slow}" 11 1500`]);
    await newSession(server, 'flood', ['sh', '-c', `stty -opost -echo && exec "${process.execPath}" "${writer}" "${streams.flood}" 23 3000`]);
    await newSession(server, 'tui', [process.execPath, tui]);
    // Ticks start at the first input (sent just before the upgrade), so they run across it.
    const tickScript = `let i = 0; process.stdin.once('data', () => { const t = setInterval(() => { process.stdout.write('tick ' + ++i + '\\n'); if (i >= ${TICKS}) clearInterval(t); }, 10); }); process.stdin.resume();`;
    await newSession(server, 'ticker', [process.execPath, '-e', tickScript]);
    const pageShell = await h.newSession({ name: 'page' });
    const shells: string[] = [];
    for (let i = 0; i < SHELLS; i++) shells.push(await newSession(server, `shell${i}`, [...BASH]));
    await server.holderPids();
    const all = await server.api<Listed[]>('GET', '/v1/sessions');
    assert.equal(all.body.length, 20);

    // Each shell shows some output and its prompt, then stays quiet: its screen must come back as it was.
    for (const [i, id] of shells.entries()) await server.cli(['send', id, `printf '\\033[3${(i % 7) + 1}mshell ${i}\\033[0m\\n'`, '--enter']);
    for (const id of shells) await waitFor(async () => /\nshell \d+\n\$ ?$/.test(await screenText(server, id)), { what: `shell ${id} to show its line and prompt` });
    await waitFor(async () => /tend test tui/.test(await screenText(server, ':tui')), { what: 'the full-screen program to draw' });
    const quietBefore = new Map<string, Awaited<ReturnType<typeof serverScreen>>>();
    for (const id of shells) quietBefore.set(id, await serverScreen(server, id, SCROLLBACK_ROWS));
    const tuiBefore = withoutStatusLine(await screenText(server, ':tui'));

    // A viewer attached in a real PTY, and a browser page, both open across the upgrade.
    const attached = await AttachedTerminal.start(scope, server, [':ticker']);
    const page = await h.open('/w/page');
    await waitForLivePane(page, pageShell);
    await typeInto(page, pageShell, 'echo before the upgrade', { enter: true });
    await waitFor(async () => /before the upgrade\n\$ ?$/.test((await paneText(page, pageShell)) ?? ''), { what: 'the page to show its output and prompt' });
    await waitFor(async () => (await session(server, ':flood')).offset > 50_000, { what: 'the flood to be under way' });

    const sentGo = await server.cli(['send', ':ticker', 'go', '--enter']);
    assert.equal(sentGo.code, 0, sentGo.stderr);
    await attached.waitForOutput('the first tick', /tick 1\r\n/);
    mark('sessions ready');
    const up = await server.cli(['upgrade', '--from', other, '--json'], { timeoutMs: 120_000 });
    // What went wrong first (the report's own words), then the progress: a long report would hide them.
    assert.equal(up.code, 0, `upgrade failed: ${failureWords(up.stdout)}\nprogress:\n${up.stderr}\nreport: ${up.stdout}`);
    mark('upgraded');
    const report = upgradeReport(up.stdout);
    assert.equal(report.outcome, 'upgraded');
    assert.equal(report.to.build, otherBuild);
    assert.equal(report.from?.build, thisBuild);
    assert.equal(report.sessions.recovered, report.sessions.running);
    assert.ok(report.sessions.running >= 18, `the sessions that were running (${report.sessions.running}) are counted`);
    assert.match(up.stderr, /sessions recovered \d+\/\d+/, 'progress said how recovery went');
    const health = (await server.api<{ build: string; recovery: { total: number; recovered: number; cold: number } }>('GET', '/v1/health')).body;
    assert.equal(health.build, otherBuild);
    assert.equal(health.recovery.cold, 0);
    assert.equal(health.recovery.recovered, health.recovery.total);
    assert.equal(readlinkSync(join(server.home, 'versions', 'current')), otherBuild);
    assert.equal(readlinkSync(join(server.home, 'versions', 'previous')), thisBuild);

    // Quiet screens are as they were, cell for cell.
    for (const [id, before] of quietBefore) {
      const after = await serverScreen(server, id, SCROLLBACK_ROWS);
      assert.deepEqual(await snapshotDiffs(before, after), [], `the screen of ${id} after the upgrade`);
    }
    assert.equal(withoutStatusLine(await screenText(server, ':tui')), tuiBefore, 'the full-screen program\'s screen, its redraw counter aside');

    mark('quiet screens compared');
    // The page reconnects by itself to the new server and takes input again.
    await waitFor(async () => (await socketState(page)) === 'open', { what: 'the page to reconnect', timeoutMs: 60_000 });
    await waitForLivePane(page, pageShell);
    await typeInto(page, pageShell, 'echo after the upgrade', { enter: true });
    await waitFor(async () => (await paneText(page, pageShell))?.includes('after the upgrade'), { what: 'input from the page after the upgrade' });
    await waitForSameScreen(h, page, pageShell);

    mark('page resumed');
    // The attached viewer saw every tick once, in order, across the server's change.
    await waitFor(() => attached.settled && ticksShown(attached).at(-1) === TICKS, {
      what: 'the attach to show the last tick',
      timeoutMs: 90_000,
      describe: () => `attach ${attached.exit ? `exited ${JSON.stringify(attached.exit)}` : 'running'}; output tail: ${JSON.stringify(attached.output.slice(-600))}`,
    });
    const expectedTicks = Array.from({ length: TICKS }, (_, i) => i + 1);
    assert.deepEqual(ticksShown(attached), expectedTicks, `each tick once, none missing, in order; around the first difference:\n${aroundFirstDifference(attached, ticksShown(attached), expectedTicks)}`);
    await attached.waitForServerScreen(server, ':ticker');

    mark('ticks checked');
    // The writers finish under the new server: the screens equal the reference, every byte seen once.
    for (const [name, file] of Object.entries(streams)) {
      const done = await waitFor(async () => {
        const s = await session(server, `:${name}`);
        return s.status === 'exited' ? s : null;
      }, { what: `the ${name} writer to finish`, timeoutMs: 120_000 });
      assert.equal(done.exitCode, 0);
      assert.equal(done.offset, statSync(file).size, `every byte ${name} wrote was seen exactly once`);
      const { diffs } = await diffAgainstReference(server, `:${name}`, file, SCROLLBACK_ROWS);
      assert.deepEqual(diffs, [], `the screen of ${name} equals the reference`);
    }

    mark('writers checked');
    // And back: --rollback returns to this tree's build, every session still running.
    const back = await server.cli(['upgrade', '--rollback', '--json'], { timeoutMs: 120_000 });
    assert.equal(back.code, 0, `rollback failed: ${back.stdout}\n${back.stderr}`);
    assert.equal(upgradeReport(back.stdout).outcome, 'rolled-back');
    assert.equal((await server.api<{ build: string }>('GET', '/v1/health')).body.build, thisBuild);
    assert.equal(readlinkSync(join(server.home, 'versions', 'current')), thisBuild);
    assert.equal(readlinkSync(join(server.home, 'versions', 'previous')), otherBuild);
    const listed = (await server.api<Listed[]>('GET', '/v1/sessions')).body;
    assert.deepEqual(listed.filter((s) => s.status !== 'running' && s.status !== 'exited'), [], 'no session went cold');
    for (const id of shells) assert.equal((await session(server, id)).status, 'running');
  });
});
