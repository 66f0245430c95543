// Sleep and wake of an agent (issue 25): keystroke-to-ready, from the input
// sent to a sleeping agent until it is awake (its conversation resumed, its
// output quiet: state idle) and until the input has reached it (its prompt
// hook reported the prompt); and the memory sleeping frees, the RSS of the
// agent's process tree before and after. On the test agent (the fake Claude
// of test/support/fake-agent, holding FAKE_AGENT_BALLAST_MB of touched memory
// as a real agent holds its heap), run by a private server with tend's hooks.
// A real agent CLI needs an account and a network: measured only by hand.

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { BenchServer, serverMissing, waitUntil } from '../lib/server-instance.js';
import { formatNumber, formatSummary, median, summarize } from '../lib/stats.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';
import { installFakeAgents } from '../../test/support/fake-agent/install-fake-agents.js';
import type { AgentActionReply, SessionInfo } from '../../src/protocol/api/index.js';

const RUNS_PER_ROUND = 3;
const QUICK_RUNS_PER_ROUND = 2;
/** The memory the test agent holds, as an idle Claude Code holds 200–600 MB. */
const BALLAST_MB = 200;
const QUICK_BALLAST_MB = 50;
/** The seeds' anchor (issue 25): keystroke-to-ready of a wake. */
const ANCHOR_MS = 1700;
const POLL_MS = 5;
const STEP_TIMEOUT_MS = 60_000;
const KB_PER_MB = 1024;

/** The descendants of pid (Linux /proc), deepest last. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  const walk = (p: number) => {
    let children: number[] = [];
    try {
      children = readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return;
    }
    for (const c of children) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

function rssKb(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0; // gone meanwhile
  }
}

/** RSS of every process under the session's shell: the agent's tree. */
function treeRssKb(shellPid: number): number {
  return descendants(shellPid).reduce((sum, p) => sum + rssKb(p), 0);
}

/** The server's own account of each wake (agent-sleep.ts logs it): when the resume line was typed, when the agent started, when it was ready. */
function wakePhases(serverLog: string): Array<{ typedMs: number; startedMs: number; readyMs: number }> {
  let text = '';
  try {
    text = readFileSync(serverLog, 'utf8');
  } catch {
    return [];
  }
  return [...text.matchAll(/woke in (\d+) ms \(resume typed at (\d+) ms, started at (\d+) ms/g)].map((m) => ({ readyMs: Number(m[1]), typedMs: Number(m[2]), startedMs: Number(m[3]) }));
}

function installedAgentCli(): string | null {
  for (const name of ['claude', 'codex', 'gemini']) {
    const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (r.status === 0 && r.stdout.trim() !== '') return name;
  }
  return null;
}

interface WakeSample {
  readyMs: number;
  deliveredMs: number;
  beforeKb: number;
  afterKb: number;
}

export const agentSleepSuite: Suite = {
  name: 'agent-sleep',
  title: 'Agent sleep and wake: keystroke-to-ready, memory freed',
  async run(ctx: BenchContext): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    if (!existsSync(join(ctx.root, 'holder', 'build', 'tend-hook'))) return skipped('the hook client is not built (holder/build/tend-hook: run `npm run build`)');
    if (!existsSync(join(ctx.root, 'dist', 'test', 'support', 'fake-agent', 'fake-agent.js'))) return skipped('the test agent is not built (dist/test/support/fake-agent: run `npm run build`)');
    const runs = ctx.quick ? QUICK_RUNS_PER_ROUND : RUNS_PER_ROUND;
    const ballastMb = ctx.quick ? QUICK_BALLAST_MB : BALLAST_MB;
    const fakeDir = join(ctx.tmpDir, 'agent-sleep');
    const home = join(fakeDir, 'home');
    mkdirSync(home, { recursive: true });
    const agents = installFakeAgents(fakeDir, ctx.env.PATH);
    const server = await BenchServer.start(ctx);
    try {
      // An empty HOME: no settings of the machine's own agents play a part.
      const env = { ...server.env, ...agents.env, HOME: home, FAKE_AGENT_BALLAST_MB: String(ballastMb) } as Record<string, string>;
      const made = await server.api<SessionInfo>('POST', '/v1/sessions', { argv: ['bash'], cwd: home, env, cols: 100, rows: 30, agent: { kind: 'claude', sleepAfterMs: 0 } });
      const id = made.id;
      const shellPid = made.pid!;
      const agentOf = async () => (await server.api<SessionInfo>('GET', `/v1/sessions/${id}`)).agent!;
      await waitUntil('the agent to start', async () => (await agentOf()).state === 'idle', STEP_TIMEOUT_MS, 20);
      // One turn first: an agent is resumed only with a conversation to resume.
      await server.api('POST', `/v1/sessions/${id}/input`, { text: 'echo warm\r' });
      await waitUntil('the first answer', async () => {
        const a = await agentOf();
        return a.state === 'idle' && a.lastTurn?.answer === 'warm';
      }, STEP_TIMEOUT_MS, 20);

      const samples: WakeSample[][] = [];
      let n = 0;
      for (let round = 0; round < ctx.rounds; round++) {
        const inRound: WakeSample[] = [];
        for (let i = 0; i < runs; i++) {
          // Idle and settled: the ballast is resident.
          await waitUntil('the agent to hold its ballast', () => treeRssKb(shellPid) > ballastMb * KB_PER_MB, STEP_TIMEOUT_MS, 20);
          const beforeKb = treeRssKb(shellPid);
          const slept = await server.api<AgentActionReply>('POST', `/v1/sessions/${id}/agent/sleep`, {});
          if (slept.agent.state !== 'sleeping') throw new Error(`the agent did not start sleeping: ${JSON.stringify(slept.agent)}`);
          await waitUntil('the agent process to end', () => descendants(shellPid).length === 0, STEP_TIMEOUT_MS, 20);
          await waitUntil('the kept screen saved', () => existsSync(join(server.home, 'agents', id, 'kept-screen.json')), STEP_TIMEOUT_MS, 20);
          const afterKb = treeRssKb(shellPid);

          const prompt = `echo wake ${++n}`;
          const t0 = performance.now();
          const sent = server.api('POST', `/v1/sessions/${id}/input`, { text: `${prompt}\r` });
          let readyMs = 0;
          let deliveredMs = 0;
          let woke = false;
          await waitUntil('the input delivered to the woken agent', async () => {
            const a = await agentOf();
            const now = performance.now() - t0;
            if (a.state === 'waking') woke = true;
            if (readyMs === 0 && woke && a.state !== 'waking' && a.state !== 'sleeping') readyMs = now;
            if (a.lastTurn?.prompt === prompt) {
              if (readyMs === 0) readyMs = now;
              deliveredMs = now;
              return true;
            }
            return false;
          }, STEP_TIMEOUT_MS, POLL_MS);
          await sent;
          await waitUntil('its answer', async () => {
            const a = await agentOf();
            return a.state === 'idle' && a.lastTurn?.answer === `wake ${n}`;
          }, STEP_TIMEOUT_MS, 20);
          inRound.push({ readyMs, deliveredMs, beforeKb, afterKb });
          ctx.log(`  run ${n}: ready ${formatNumber(readyMs)} ms, delivered ${formatNumber(deliveredMs)} ms; agent tree ${formatNumber(beforeKb / KB_PER_MB)} MB → ${formatNumber(afterKb / KB_PER_MB)} MB`);
        }
        samples.push(inRound);
      }
      const all = samples.flat();
      const phases = wakePhases(server.serverLog);
      const phaseRow = (name: string, pick: (p: { typedMs: number; startedMs: number; readyMs: number }) => number) =>
        [name, phases.length > 0 ? formatNumber(median(phases.map(pick))) : '—', '', ''];
      const roundMedians = (pick: (s: WakeSample) => number) => samples.map((r) => median(r.map(pick)));
      const real = installedAgentCli();
      return {
        tables: [
          {
            title: `Wake, keystroke to ready, ms (${ctx.rounds} round${ctx.rounds > 1 ? 's' : ''} × ${runs} wakes)`,
            columns: ['measure', 'median, all wakes', 'round medians', 'anchor'],
            rows: [
              ['input sent → awake (state idle)', formatNumber(median(all.map((s) => s.readyMs))), formatSummary(summarize(roundMedians((s) => s.readyMs))), formatNumber(ANCHOR_MS)],
              ['input sent → it reached the agent (prompt hook)', formatNumber(median(all.map((s) => s.deliveredMs))), formatSummary(summarize(roundMedians((s) => s.deliveredMs))), '—'],
              phaseRow('  server: wake start → resume line typed', (p) => p.typedMs),
              phaseRow('  server: wake start → agent started (SessionStart)', (p) => p.startedMs),
              phaseRow('  server: wake start → ready (output quiet 500 ms)', (p) => p.readyMs),
            ],
            notes: [
              'A sleeping test agent (the fake Claude Code, Node) in a bash session of a private server: the input `echo wake N` + Enter is sent through POST /v1/sessions/:id/input, and the agent polled every 5 ms. The wake types `cd DIR && claude --resume ID --settings FILE` at the shell prompt, waits for the agent\'s SessionStart hook and 500 ms of quiet output, then lets the input through.',
              'The server rows are its own log of each wake (median): typing waits for the shell to be at its prompt and quiet (200 ms), then the agent starts and reports it, then tend waits for 500 ms without output.',
              `Anchor (issue 25): ${ANCHOR_MS} ms keystroke-to-ready. Most of a wake is the agent's own start (a Node process, its settings, its hooks; the test agent also allocates and writes its ${ballastMb} MB ballast then) and the 500 ms of quiet tend waits for. Figures on a loaded machine are the machine's: see the load averages above.`,
            ],
          },
          {
            title: 'Memory freed by sleeping, RSS of the agent\'s process tree, MB',
            columns: ['agent', 'awake, idle', 'asleep', 'freed'],
            rows: [[
              `test agent, ${ballastMb} MB ballast`,
              formatNumber(median(all.map((s) => s.beforeKb)) / KB_PER_MB),
              formatNumber(median(all.map((s) => s.afterKb)) / KB_PER_MB),
              formatNumber(median(all.map((s) => s.beforeKb - s.afterKb)) / KB_PER_MB),
            ]],
            notes: [
              'RSS (VmRSS) summed over every process under the session\'s shell, idle before the sleep and once asleep (the shell and the session stay; the kept screen lives in the server, a few KB of JSON on disk). Medians over all wakes.',
              real === null
                ? 'No real agent CLI (claude, codex, gemini) is installed on this machine: measured on the test agent only.'
                : `A real agent CLI (${real}) is installed, but it needs an account and a network: the bench measures the test agent only; measure ${real} by hand (tend agent ${real}, then tend agent sleep).`,
            ],
          },
        ],
        data: { runsPerRound: runs, ballastMb, samples, serverPhases: phases },
      };
    } finally {
      await server.close();
    }
  },
};
