// Reattach: how long a tmux client takes to paint a pane that holds N rows of
// history, from the client's spawn (`ptytool attach`): first byte, last byte
// before a quiet spell, bytes painted. The reference for `tend attach`.

import { tmuxArgv, TmuxServer } from '../lib/tmux.js';
import { alternate, field, type Side } from '../lib/rounds.js';
import type { AttachResult } from '../lib/ptytool.js';
import { formatSummary, summarize } from '../lib/stats.js';
import type { Suite, SuiteReport } from '../lib/suite.js';

const HISTORY_ROWS = [3000, 10_000] as const;
/** room for the largest history plus the screen */
const SERVER_HISTORY_ROWS = 20_000;
const QUIET_MS = 200;

export const tmuxReattachSuite: Suite = {
  name: 'tmux-reattach',
  title: 'Reattach: tmux attach to a pane with history, ms',
  async run(ctx): Promise<SuiteReport> {
    const server = ctx.owned.add(await TmuxServer.start(ctx.env, SERVER_HISTORY_ROWS));
    for (const rows of HISTORY_ROWS) {
      await server.run(['new-session', '-d', '-s', `h${rows}`, '-x', '80', '-y', '24',
        `head -n ${rows} '${ctx.fill80.path}'; tmux wait-for -S filled${rows}; exec cat`]);
      await server.run(['wait-for', `filled${rows}`]);
    }
    const sides: Side<AttachResult>[] = HISTORY_ROWS.map((rows) => ({
      name: `80x24, ${rows} rows of history`,
      run: () => ctx.ptytool.attach(tmuxArgv(server.name, 'attach', '-t', `h${rows}`), QUIET_MS),
    }));
    const samples = await alternate(ctx.rounds, sides, (side, round, r) =>
      ctx.log(`  round ${round + 1} ${side}: first ${r.first_byte_ms.toFixed(1)} ms, last ${r.last_byte_ms.toFixed(1)} ms`));
    server.dispose();
    return {
      tables: [{
        title: 'tmux reattach (clock starts at the client\'s spawn)',
        columns: ['tmux pane', 'first byte, ms', `last byte before ${QUIET_MS} ms quiet, ms`, 'bytes painted'],
        rows: sides.map((s) => [s.name,
          formatSummary(summarize(field(samples, s.name, (r) => r.first_byte_ms))),
          formatSummary(summarize(field(samples, s.name, (r) => r.last_byte_ms))),
          formatSummary(summarize(field(samples, s.name, (r) => r.bytes)))]),
      }],
      data: Object.fromEntries(samples),
    };
  },
};
