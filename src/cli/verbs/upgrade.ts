import type { Verb } from '../verb.js';
import { jsonOption, printJson } from '../verb.js';
import { usageError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { parseSource } from '../upgrade/source.js';
import { runUpgrade } from '../upgrade/run-upgrade.js';
import { runHolderUpgrade } from '../upgrade/holders.js';

export const upgradeVerb: Verb = {
  name: 'upgrade',
  summary: 'move the server to a new build (or back) without closing a terminal',
  usage: `tend upgrade [--from PATH | --from git:URL[#REF]] [--json]
tend upgrade --rollback [--json]
tend upgrade --holders [--json]

Installs a build of tend beside the running one (in TEND_HOME/versions/),
stops the running server (it saves every screen; terminals keep running in
their holders), starts the new build's server and checks it: its API
answers, it is the new build, every session that was running is running
again, and a viewer gets a screen. Then the new build becomes current
(TEND_HOME/versions/current, which \`tend\` on PATH follows) and the old one
is kept for --rollback. If the check fails, the new server is stopped, the
store is put back byte for byte from the backup made before, the old server
is started again, and the reason is said (exit status 1). Attached viewers
and browser pages reconnect by themselves and come back to the same screens.

Where the new build comes from:
  (nothing)          the tend that runs this command (after installing a new tend)
  --from PATH        a tend tree: used as it is when built, else copied and built
                     (npm ci) in TEND_HOME/versions/
  --from git:URL     a git repository, cloned (at #REF: a branch, tag or commit)
                     and built the same way

--rollback goes back to the build that was current before the last upgrade
(TEND_HOME/versions/previous), the same way; if the newer build had migrated
the store to a schema the older one cannot read, the store backup made when
leaving the older build is put back (what changed since is lost from it).
--holders replaces each running holder's binary in place, keeping its
terminal. --json prints a report at the end; progress goes to stderr then.
See docs/upgrades.md.`,
  options: {
    from: { type: 'string' },
    rollback: { type: 'boolean' },
    holders: { type: 'boolean' },
    ...jsonOption,
  },
  operands: '',
  async run({ args, client, stdout, stderr }) {
    const json = args.values.json === true;
    const from = typeof args.values.from === 'string' ? args.values.from : undefined;
    const rollback = args.values.rollback === true;
    if (rollback && from !== undefined) throw usageError('--rollback goes back to the previous build; it takes no --from');
    if (args.values.holders === true) {
      if (rollback || from !== undefined) throw usageError('--holders replaces the running holders\' binary alone; it takes no --from or --rollback');
      return runHolderUpgrade({ client, stdout, json });
    }
    const progress = json ? stderr : stdout;
    const report = await runUpgrade({
      client,
      source: parseSource(from),
      rollback,
      say: (line) => progress.write(`${line}\n`),
      buildLog: stderr,
    });
    if (json) printJson(stdout, report);
    else if (!report.ok) stderr.write(`${report.message}\n`);
    return report.ok ? EXIT.ok : EXIT.failed;
  },
};
