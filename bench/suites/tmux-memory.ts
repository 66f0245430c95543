// tmux's memory per session, the figure a holder plus a server screen is
// compared with: marginal server RSS per idle session, and per session that
// holds 10 000 rows of 80-column history. The panes' own processes (`cat`)
// are not counted.

import { formatSummary, summarize } from '../lib/stats.js';
import type { BenchContext, Suite, SuiteReport } from '../lib/suite.js';
import { TmuxServer } from '../lib/tmux.js';

const FEW_SESSIONS = 10;
const MANY_SESSIONS = 100;
const HISTORY_SESSIONS = 10;
/** commands per tmux invocation: one client start for many sessions */
const SESSIONS_PER_CALL = 25;

async function addSessions(server: TmuxServer, ids: string[], command: (id: string) => string): Promise<void> {
  for (let i = 0; i < ids.length; i += SESSIONS_PER_CALL) {
    const args: string[] = [];
    for (const id of ids.slice(i, i + SESSIONS_PER_CALL)) {
      if (args.length) args.push(';');
      args.push('new-session', '-d', '-s', id, command(id));
    }
    await server.run(args);
  }
}

interface Sample {
  rssFewKb: number;
  rssManyKb: number;
  rssHistoryKb: number;
  idleKbPerSession: number;
  historyMbPerSession: number;
}

async function measureOnce(ctx: BenchContext, round: number): Promise<Sample> {
  const server = ctx.owned.add(await TmuxServer.start(ctx.env));
  const ids = (from: number, to: number, prefix: string): string[] =>
    Array.from({ length: to - from }, (_, i) => `${prefix}${from + i}`);
  // the server starts with one session ("keep")
  await addSessions(server, ids(1, FEW_SESSIONS, 'idle'), () => 'cat');
  const rssFewKb = server.rssKb();
  await addSessions(server, ids(FEW_SESSIONS, MANY_SESSIONS, 'idle'), () => 'cat');
  const rssManyKb = server.rssKb();
  const hist = ids(0, HISTORY_SESSIONS, 'hist');
  await addSessions(server, hist, (id) => `cat '${ctx.fill80.path}'; tmux wait-for -S ${id}; exec cat`);
  for (const id of hist) await server.run(['wait-for', id]);
  const rssHistoryKb = server.rssKb();
  server.dispose();
  const s = {
    rssFewKb, rssManyKb, rssHistoryKb,
    idleKbPerSession: (rssManyKb - rssFewKb) / (MANY_SESSIONS - FEW_SESSIONS),
    historyMbPerSession: (rssHistoryKb - rssManyKb) / HISTORY_SESSIONS / 1024,
  };
  ctx.log(`  round ${round + 1}: ${s.idleKbPerSession.toFixed(1)} kB per idle session, ${s.historyMbPerSession.toFixed(2)} MB per 10 000-row session`);
  return s;
}

export const tmuxMemorySuite: Suite = {
  name: 'tmux-memory',
  title: 'tmux memory per session',
  async run(ctx): Promise<SuiteReport> {
    const rounds = ctx.quick ? 1 : Math.min(ctx.rounds, 3);
    const samples: Sample[] = [];
    for (let r = 0; r < rounds; r++) samples.push(await measureOnce(ctx, r));
    const f = (pick: (s: Sample) => number): string => formatSummary(summarize(samples.map(pick)));
    return {
      tables: [{
        title: `tmux server memory (${rounds} round${rounds > 1 ? 's' : ''})`,
        columns: ['what', 'figure'],
        rows: [
          [`server RSS, ${FEW_SESSIONS} / ${MANY_SESSIONS} idle sessions`, `${f((s) => s.rssFewKb)} / ${f((s) => s.rssManyKb)} kB`],
          ['marginal per idle session', `${f((s) => s.idleKbPerSession)} kB`],
          [`marginal per session with ${ctx.fill80.name} (10 000 rows x 80 cols) in history`, `${f((s) => s.historyMbPerSession)} MB`],
        ],
        notes: ['RSS from /proc/PID/status of the server; each pane runs `cat`, which is not counted.'],
      }],
      data: samples,
    };
  },
};
