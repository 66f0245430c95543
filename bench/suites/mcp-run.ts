// What `tend mcp` adds to running a command: the MCP `run` tool with `true`,
// called through the MCP SDK's own client over stdio on one long-lived
// `tend mcp` (connected, as an agent's is), against the await route it rides
// on (POST /await from inside the bench: the server's own cost) and against
// `tend await ID -- true` as a user types it (a fresh CLI process each time),
// all in the same bash session and the same rounds. Also what an agent pays
// once per start: spawning `tend mcp` until its tools/list answer.

import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { join } from 'node:path';
import { toDisposable } from '../../src/common/lifecycle.js';
import type { AwaitReply } from '../../src/protocol/api/index.js';
import { isAlive } from '../lib/child-process.js';
import { ProcessTimer, tendCommand } from '../lib/cli-process.js';
import { figuresOf, roundMedianDifferences, type CliSamples, type CliSide } from '../lib/cli-rounds.js';
import { BenchServer, serverMissing } from '../lib/server-instance.js';
import { formatNumber, formatSummary, percentile, roundRatios, summarize } from '../lib/stats.js';
import { skipped, type BenchContext, type Suite, type SuiteReport } from '../lib/suite.js';

const RUNS_PER_ROUND = 10;
const QUICK_RUNS_PER_ROUND = 3;
/** Spawning `tend mcp` costs a Node start each time: fewer of those a round. */
const STARTS_PER_ROUND = 4;
const QUICK_STARTS_PER_ROUND = 1;
/** Issue 26: a `run` through MCP adds at most this (p50) to the await it rides on. */
const TARGET_OVER_AWAIT_MS = 50;
/** A `true` that takes this long is a hung run, not a slow one. */
const RUN_TIMEOUT_SECONDS = 30;
const CALL_TIMEOUT_MS = 60_000;
/** How long the new bash may take to show its first prompt (its rc files run first). */
const SHELL_READY_TIMEOUT_MS = 60_000;
const EXIT_WAIT_MS = 10_000;

const API_AWAIT = 'POST /await {input: true} (in the bench)';
const TEND_AWAIT = 'tend await ID -- true';
const MCP_RUN = 'MCP run {command: true} (connected client)';
const MCP_PING = 'MCP ping (connected client)';
const MCP_START = 'spawn tend mcp → tools/list answered';

/** The part of the run tool's answer the bench checks: a `true` that ran and exited 0. */
interface RunAnswer {
  status?: string;
  exit_code?: number | null;
}

/** One `tend mcp` with the SDK's client connected to it, its process ended by PID however the run ends. */
class McpPeer {
  /** Set once the process is known gone: its PID may be another process's after that. */
  private ended = false;

  private constructor(readonly client: Client, private readonly transport: StdioClientTransport, readonly pid: number) {}

  /** Spawns `node bin/tend.js mcp` and connects (the initialize handshake); `connectedMs` from just before the spawn. */
  static async start(ctx: BenchContext, env: NodeJS.ProcessEnv): Promise<{ peer: McpPeer; connectedMs: number; started: number }> {
    const [command, ...args] = tendCommand(ctx.root, 'mcp');
    const childEnv: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) if (v !== undefined) childEnv[k] = v;
    const transport = new StdioClientTransport({ command: command!, args, env: childEnv, cwd: ctx.tmpDir, stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const client = new Client({ name: 'tend-bench', version: '1.0.0' });
    const started = performance.now();
    try {
      await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
    } catch (err) {
      const pid = transport.pid;
      if (pid !== null && isAlive(pid)) process.kill(pid, 'SIGKILL');
      throw new Error(`tend mcp did not connect (${err instanceof Error ? err.message : String(err)}): ${stderr.trim().slice(0, 300)}`);
    }
    const connectedMs = performance.now() - started;
    const pid = transport.pid;
    if (pid === null) throw new Error('tend mcp has no PID after connecting');
    const peer = new McpPeer(client, transport, pid);
    ctx.owned.add(toDisposable(() => peer.kill()));
    return { peer, connectedMs, started };
  }

  async toolNames(): Promise<string[]> {
    const { tools } = await this.client.listTools(undefined, { timeout: CALL_TIMEOUT_MS });
    return tools.map((t) => t.name);
  }

  /** Closes stdin (tend mcp ends when its client goes) and waits for the process to be gone. */
  async close(): Promise<void> {
    await this.client.close();
    const deadline = performance.now() + EXIT_WAIT_MS;
    while (isAlive(this.pid) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    this.kill();
  }

  kill(): void {
    if (this.ended) return;
    this.ended = true;
    if (isAlive(this.pid)) {
      try {
        process.kill(this.pid, 'SIGKILL');
      } catch {
        // gone between the check and the kill
      }
    }
    void this.transport.close().catch(() => {});
  }
}

function elapsedOf(work: () => Promise<unknown>): () => Promise<number> {
  return async () => {
    const started = performance.now();
    await work();
    return performance.now() - started;
  };
}

export const mcpRunSuite: Suite = {
  name: 'mcp-run',
  title: 'tend mcp: a run of `true` through MCP vs tend await vs the await route, ms',
  async run(ctx: BenchContext): Promise<SuiteReport> {
    const missing = serverMissing(ctx.root);
    if (missing) return skipped(missing);
    const runs = ctx.quick ? QUICK_RUNS_PER_ROUND : RUNS_PER_ROUND;
    const starts = ctx.quick ? QUICK_STARTS_PER_ROUND : STARTS_PER_ROUND;
    const server = await BenchServer.start(ctx);
    const timer = ctx.owned.add(new ProcessTimer());
    let agent: McpPeer | undefined;
    try {
      // plain `bash`: the server injects its shell integration, so every command gets its end mark
      const session = await server.createSession(['bash']);
      const base = `/v1/sessions/${encodeURIComponent(session.id)}`;

      const apiAwait = async (): Promise<void> => {
        const reply = await server.api<AwaitReply>('POST', `${base}/await`, { input: 'true', timeoutMs: RUN_TIMEOUT_SECONDS * 1000 });
        if (reply.status !== 'done' || !('exitCode' in reply) || reply.exitCode !== 0) throw new Error(`await of true answered ${JSON.stringify(reply).slice(0, 300)}`);
      };
      // the agent's `tend mcp`, connected and with its tool list read, as an agent holds it
      agent = (await McpPeer.start(ctx, server.env)).peer;
      const peer = agent;
      if (!(await peer.toolNames()).includes('run')) throw new Error('tend mcp lists no run tool');
      const mcpRun = async (): Promise<void> => {
        const result = await peer.client.callTool(
          { name: 'run', arguments: { session: session.id, command: 'true', timeout_seconds: RUN_TIMEOUT_SECONDS } },
          { timeout: CALL_TIMEOUT_MS },
        );
        const answer = result.structuredContent as RunAnswer | undefined;
        if (result.isError || answer?.status !== 'done' || answer.exit_code !== 0) throw new Error(`run of true answered ${JSON.stringify(result.structuredContent ?? result.content).slice(0, 300)}`);
      };
      const mcpStart = async (): Promise<number> => {
        const { peer: fresh, started } = await McpPeer.start(ctx, server.env);
        try {
          const names = await fresh.toolNames();
          const ms = performance.now() - started;
          if (!names.includes('run')) throw new Error(`tend mcp listed ${names.join(', ')}: no run tool`);
          return ms;
        } finally {
          await fresh.close();
        }
      };

      // the first await waits for the new shell's first prompt (its integration loaded), asked
      // again while the server's own wait for it runs out (a user's rc can take seconds on a busy machine)
      const shellReadyBy = performance.now() + SHELL_READY_TIMEOUT_MS;
      for (;;) {
        try {
          await apiAwait();
          break;
        } catch (err) {
          if (!String(err).includes('no_shell_integration') || performance.now() > shellReadyBy) throw err;
        }
      }
      const sides: CliSide[] = [
        { name: API_AWAIT, run: elapsedOf(apiAwait) },
        { name: TEND_AWAIT, run: async () => (await timer.run(tendCommand(ctx.root, 'await', session.id, '--', 'true'), server.env, ctx.tmpDir)).ms },
        { name: MCP_RUN, run: elapsedOf(mcpRun) },
        { name: MCP_PING, run: elapsedOf(() => peer.client.ping({ timeout: CALL_TIMEOUT_MS })) },
      ];
      const startSide: CliSide = { name: MCP_START, run: mcpStart };
      // unmeasured: modules in the page cache, routes and the tool's code compiled
      for (const s of [...sides, startSide]) await s.run();

      // Each round: the per-call sides take turns call by call, then the starts (a Node process each).
      const samples: CliSamples = new Map([...sides, startSide].map((s) => [s.name, [] as number[][]]));
      for (let round = 0; round < ctx.rounds; round++) {
        for (const s of [...sides, startSide]) samples.get(s.name)!.push([]);
        for (let i = 0; i < runs; i++) {
          // each pass starts one side further on, so no side always comes right after `tend await`'s process
          for (let k = 0; k < sides.length; k++) {
            const s = sides[(i + k) % sides.length]!;
            samples.get(s.name)![round]!.push(await s.run());
          }
        }
        for (let i = 0; i < starts; i++) samples.get(MCP_START)![round]!.push(await startSide.run());
        ctx.log(`  round ${round + 1}: ${[...sides, startSide].map((s) => `${s.name} ${formatNumber(figuresOf(samples, s.name).roundMedians[round]!)}`).join('; ')} ms (medians)`);
      }

      const diff = (a: string, b: string): string => formatSummary(summarize(roundMedianDifferences(samples, a, b)));
      const p50 = (side: string): number => percentile((samples.get(side) ?? []).flat(), 50);
      const ratio = (a: string, b: string): string => formatSummary(summarize(roundRatios(figuresOf(samples, a).roundMedians, figuresOf(samples, b).roundMedians)));
      const overAwait = roundMedianDifferences(samples, MCP_RUN, API_AWAIT);
      const overAwaitP50 = p50(MCP_RUN) - p50(API_AWAIT);
      const rows = [...sides, startSide].map((s) => {
        const f = figuresOf(samples, s.name);
        return [s.name, formatSummary(f.all), formatNumber(f.p90), formatSummary(summarize(f.roundMedians))];
      });
      const plural = ctx.rounds > 1 ? 's' : '';
      return {
        tables: [
          {
            title: `Running \`true\` through tend mcp, tend await and the await route, ms (${ctx.rounds} round${plural} × ${runs} calls; ${starts} start${starts > 1 ? 's' : ''} of tend mcp a round)`,
            columns: ['how', 'all runs', 'p90, all runs', 'round medians'],
            rows,
          },
          {
            title: 'tend mcp, same-round comparisons (differences and ratios of round medians), ms',
            columns: ['comparison', 'round medians', 'p50 of all runs'],
            rows: [
              [`MCP over await: MCP run − POST /await (target ≤ ${TARGET_OVER_AWAIT_MS})`, formatSummary(summarize(overAwait)), formatNumber(overAwaitP50)],
              ['MCP run − tend await', diff(MCP_RUN, TEND_AWAIT), formatNumber(p50(MCP_RUN) - p50(TEND_AWAIT))],
              ['MCP run / tend await (ratio)', ratio(MCP_RUN, TEND_AWAIT), formatNumber(p50(MCP_RUN) / p50(TEND_AWAIT))],
              ['tend await − POST /await (the CLI process)', diff(TEND_AWAIT, API_AWAIT), formatNumber(p50(TEND_AWAIT) - p50(API_AWAIT))],
              ['MCP run − MCP ping (the tool beyond the stdio round trip)', diff(MCP_RUN, MCP_PING), formatNumber(p50(MCP_RUN) - p50(MCP_PING))],
            ],
            notes: [
              `One private server, one session running plain \`bash\` (tend injects its shell integration: OSC 133 marks, D with the exit status); every side runs \`true\` in that same shell. In a round the per-call sides take turns call by call (${runs} each; each pass starts one side further on, so that none always follows another), then \`tend mcp\` is started ${starts} time${starts > 1 ? 's' : ''}; one unmeasured run of each first.`,
              `The MCP sides use the SDK's own client (@modelcontextprotocol/client) over stdio to \`node bin/tend.js mcp\`, started once for the suite, initialized and its tools listed before the first call, as an agent holds it; each call is timed in the bench from callTool to its answer (each run answer is checked: no isError, status done, exit_code 0). POST /await is the route \`tend await\` and the run tool ride on, called from the bench with the CLI's client; \`tend await\` is a fresh \`node bin/tend.js\` process, timed from spawn to exit.`,
              `Target (issue 26): a run through MCP costs at most ${TARGET_OVER_AWAIT_MS} ms (p50) beyond the await itself; here ${formatNumber(overAwaitP50)} ms at p50 (${overAwaitP50 <= TARGET_OVER_AWAIT_MS ? 'within' : 'over'} it). The await route writes Enter 20 ms after the input, on purpose, so about 20 ms of every await and run figure is that pause.`,
              `"${MCP_START}": from just before the client spawns \`tend mcp\` (Node start-up, the CLI's and the SDK's modules), through the initialize handshake, to the tools/list answer; what an agent pays once per start of its MCP server. The process is closed (stdin ended) and gone before the next start.`,
            ],
          },
        ],
        data: { runsPerRound: runs, startsPerRound: starts, targetOverAwaitMs: TARGET_OVER_AWAIT_MS, overAwaitP50Ms: overAwaitP50, samples: Object.fromEntries(samples) },
      };
    } finally {
      await agent?.close().catch(() => agent?.kill());
      timer.dispose();
      await server.close();
    }
  },
};
