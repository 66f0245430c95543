// What tend's hook adds to an agent's turn. Claude Code holds a typed prompt
// until its UserPromptSubmit hooks have run, so the hook's whole run, from
// the agent's spawn to its exit, is time the person waits. Measured as an
// agent runs a command hook: `sh -c COMMAND`, the JSON payload written to its
// stdin, against a running private server and a session the hook reports
// for. Sides: the native client tend registers (holder/build/tend-hook), the
// Node form `tend hook` for comparison, and `/bin/true` spawned the same way
// (the floor: what any command hook costs).

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { figuresOf, interleave, roundMedianDifferences, type CliSide } from '../lib/cli-rounds.js';
import { tendCommand } from '../lib/cli-process.js';
import { BenchServer, serverMissing } from '../lib/server-instance.js';
import { formatNumber, formatSummary, percentile, summarize } from '../lib/stats.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';
import { shQuote } from '../../src/common/agents/catalogue.js';
import type { SessionInfo } from '../../src/protocol/api/index.js';

/** 5 rounds × 8: 40 runs of each side in a full run. */
const RUNS_PER_ROUND = 8;
const QUICK_RUNS_PER_ROUND = 5;
/** Issue 25: the hook path adds at most this to a turn (p50). */
const TARGET_MS = 20;
/** A hook run that takes this long is hung, not slow (its own bounds are 2 s and 300 ms). */
const HANG_GUARD_MS = 30_000;
const FLOOR = '/bin/true';
const NATIVE = 'tend-hook claude UserPromptSubmit';
const NODE = 'tend hook UserPromptSubmit';

/** Runs `sh -c command` with the payload on stdin; resolves with ms from spawn to exit; any exit but 0 rejects. */
function timeHook(command: string, env: NodeJS.ProcessEnv, payload: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('/bin/sh', ['-c', command], { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let exitedAt = 0;
    let err = '';
    const guard = setTimeout(() => child.kill('SIGKILL'), HANG_GUARD_MS);
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdin.on('error', () => {}); // a hook that does not read (true) closes its stdin early
    child.once('exit', () => (exitedAt = performance.now()));
    child.once('error', (e) => {
      clearTimeout(guard);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(guard);
      if (code === 0 && err === '') resolve((exitedAt || performance.now()) - started);
      else reject(new Error(`${command} failed (${signal ?? `exit ${code}`}): ${err.trim().slice(0, 300)}`));
    });
    child.stdin.end(payload);
  });
}

/** A Claude Code UserPromptSubmit payload with the fields the real one has. */
function promptPayload(conversation: string, cwd: string, prompt: string, promptId: string): string {
  return JSON.stringify({
    session_id: conversation, prompt_id: promptId, transcript_path: join(cwd, `${conversation}.jsonl`), cwd,
    permission_mode: 'default', hook_event_name: 'UserPromptSubmit', prompt,
  });
}

export const hookCostSuite: Suite = {
  name: 'hook-cost',
  title: 'Hook cost added to an agent\'s turn: tend-hook vs tend hook vs /bin/true, ms',
  async run(ctx: BenchContext): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    const hookClient = join(ctx.root, 'holder', 'build', 'tend-hook');
    if (!existsSync(hookClient)) return skipped('the hook client is not built (holder/build/tend-hook: run `npm run build`)');
    const runs = ctx.quick ? QUICK_RUNS_PER_ROUND : RUNS_PER_ROUND;
    const server = await BenchServer.start(ctx);
    try {
      const session = await server.createSession(['cat']);
      // What an agent's hook sees in a tend session (and nothing of a Claude of the bench's own).
      const env: NodeJS.ProcessEnv = { ...server.env, TEND_SESSION: session.id, TEND_SOCKET: server.client.paths.serverSocket };
      delete env.CLAUDE_CODE_SESSION_ID;
      delete env.GEMINI_SESSION_ID;
      const conversation = randomUUID();
      const nativeCommand = `${shQuote(hookClient)} claude`;
      const nodeCommand = tendCommand(ctx.root, 'hook').map(shQuote).join(' ');
      await timeHook(`${nativeCommand} SessionStart`, env, JSON.stringify({ session_id: conversation, transcript_path: join(ctx.tmpDir, 't.jsonl'), cwd: ctx.tmpDir, hook_event_name: 'SessionStart', source: 'startup' }));

      let turn = 0;
      // One turn: the measured prompt hook, then (unmeasured) a check that the server has the prompt — a hook
      // that failed silently would be quick — and the Stop that ends the turn, so each prompt starts one.
      const turnWith = (command: string) => async (): Promise<number> => {
        const prompt = `bench prompt ${++turn}`;
        const ms = await timeHook(command, env, promptPayload(conversation, ctx.tmpDir, prompt, `p${turn}`));
        const info = await server.api<SessionInfo>('GET', `/v1/sessions/${session.id}`);
        if (info.agent?.lastTurn?.prompt !== prompt) throw new Error(`the server did not get "${prompt}" from ${command.slice(0, 80)} (its last turn: ${JSON.stringify(info.agent?.lastTurn?.prompt)})`);
        await timeHook(`${nativeCommand} Stop`, env, JSON.stringify({ session_id: conversation, cwd: ctx.tmpDir, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'ok' }));
        return ms;
      };
      const sides: CliSide[] = [
        { name: FLOOR, run: () => timeHook(FLOOR, env, promptPayload(conversation, ctx.tmpDir, 'floor', 'floor')) },
        { name: NATIVE, run: turnWith(`${nativeCommand} UserPromptSubmit`) },
        { name: NODE, run: turnWith(`${nodeCommand} UserPromptSubmit`) },
      ];
      // one unmeasured run each: the page cache holds the programs and modules, the server has compiled its routes
      for (const s of sides) await s.run();
      const samples = await interleave(ctx.rounds, runs, sides, (round, all) =>
        ctx.log(`  round ${round + 1}: ${sides.map((s) => `${s.name} ${formatNumber(figuresOf(all, s.name).roundMedians[round]!)}`).join(', ')} ms (medians of ${runs})`));

      const rows = sides.map((s) => {
        const f = figuresOf(samples, s.name);
        const all = (samples.get(s.name) ?? []).flat();
        return [s.name, formatNumber(percentile(all, 50)), formatNumber(percentile(all, 95)), formatSummary(summarize(f.roundMedians)),
          s.name === FLOOR ? '—' : formatSummary(summarize(roundMedianDifferences(samples, s.name, FLOOR)))];
      });
      const plural = ctx.rounds > 1 ? 's' : '';
      return {
        tables: [{
          title: `Hook cost added to a turn, spawn to exit, ms (${ctx.rounds} round${plural} × ${runs} runs of each)`,
          columns: ['hook command', 'p50, all runs', 'p95, all runs', 'round medians', 'minus /bin/true (round medians)'],
          rows,
          notes: [
            'Each run is `/bin/sh -c COMMAND` with a Claude Code UserPromptSubmit payload written to its stdin, as an agent runs a command hook, timed by the bench from just before spawn to the exit event; in a round the sides take turns run by run.',
            `The hook reports to a private tend server for a session running \`cat\` (TEND_SESSION, TEND_SOCKET as tend sets them); after each run the bench checks that the server has that prompt as its agent's turn (so a hook that failed silently cannot look fast) and ends the turn with a Stop through tend-hook, both unmeasured.`,
            `tend-hook is the native client tend registers in agents' settings (holder/hook-client.c); \`tend hook\` is \`node bin/tend.js hook\`, for hook entries people write by hand; /bin/true is the floor, the cost of any command hook. Target (issue 25): the hook adds at most ${TARGET_MS} ms to a turn (tend-hook's p50). One unmeasured run of each first.`,
          ],
        }],
        data: { runsPerRound: runs, samples: Object.fromEntries(samples) },
      };
    } finally {
      await server.close();
    }
  },
};
