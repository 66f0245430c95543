// `tend VERB ...`: finds the verb, reads its command line against its table,
// runs it, and says any error in one place (cli-error.ts): one line, or JSON
// with --json, and an exit status from exit-codes.ts.
import { TendClient } from './client.js';
import { CliError, internalError, usageError, writeError } from './cli-error.js';
import { EXIT } from './exit-codes.js';
import { mainHelp, verbHelp } from './help.js';
import { readVerbArgs } from './verb-args.js';
import { nearest } from '../common/nearest.js';
import type { Verb } from './verb.js';
import { newVerb } from './verbs/new.js';
import { agentVerb } from './verbs/agent.js';
import { attachVerb } from './verbs/attach.js';
import { lsVerb } from './verbs/ls.js';
import { killVerb } from './verbs/kill.js';
import { renameVerb } from './verbs/rename.js';
import { reviveVerb } from './verbs/revive.js';
import { sendVerb } from './verbs/send.js';
import { screenVerb } from './verbs/screen.js';
import { serverVerb } from './verbs/server.js';
import { splitVerb } from './verbs/split.js';
import { commandsVerb } from './verbs/commands.js';
import { outputVerb } from './verbs/output.js';
import { searchVerb } from './verbs/search.js';
import { grepVerb } from './verbs/grep.js';
import { awaitVerb } from './verbs/await.js';
import { shellIntegrationVerb } from './verbs/shell-integration.js';
import { openVerb } from './verbs/open.js';
import { logsVerb } from './verbs/logs.js';
import { completionVerb } from './verbs/completion.js';
import { hooksVerb } from './verbs/hooks.js';
import { hookVerb } from './verbs/hook.js';
import { mcpVerb } from './verbs/mcp.js';
import { remoteVerb } from './verbs/remote.js';
import { upgradeVerb } from './verbs/upgrade.js';
import { serviceVerb } from './verbs/service.js';

export const verbs: Verb[] = [
  newVerb, agentVerb, attachVerb, lsVerb, splitVerb, sendVerb, screenVerb, searchVerb, grepVerb, commandsVerb, outputVerb, awaitVerb,
  killVerb, renameVerb, reviveVerb, openVerb, shellIntegrationVerb, serverVerb, logsVerb, completionVerb(() => verbs),
  hooksVerb,
  hookVerb,
  mcpVerb,
  remoteVerb,
  serviceVerb,
  upgradeVerb,
];

/**
 * `tend search ... | head`: the reader left, so there is nobody to tell;
 * end quietly, as programs killed by SIGPIPE do, never with a stack trace.
 */
function endQuietlyWhenOutputCloses(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT.outputClosed);
    throw err;
  });
}

/** An unknown verb, with the nearest ones (`tend atach`: did you mean attach?). */
function unknownVerb(name: string): CliError {
  if (name.startsWith('-')) return usageError(`${name} is an option, not a verb: options go after the verb (tend VERB ${name}); \`tend help\` lists the verbs`);
  const close = nearest(name, verbs.map((v) => v.name));
  const suggestion = close.length > 0 ? ` (did you mean ${close.join(' or ')}?)` : '';
  return usageError(`no verb "${name}"${suggestion}; \`tend help\` lists them`, close.length > 0 ? { candidates: close } : {});
}

function fail(err: CliError, json: boolean): number {
  writeError(err, { json, stderr: process.stderr });
  return err.exitCode;
}

export async function run(argv: string[]): Promise<number> {
  endQuietlyWhenOutputCloses();
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = name === 'help' ? rest[0] : undefined;
    if (topic === undefined) {
      process.stdout.write(mainHelp(verbs));
      return EXIT.ok;
    }
    const verb = verbs.find((v) => v.name === topic);
    if (!verb) return fail(unknownVerb(topic), false);
    process.stdout.write(verbHelp(verb));
    return EXIT.ok;
  }
  if (name === '--version' || name === '-V') {
    const { TEND_BUILD, TEND_VERSION } = await import('../common/version.js');
    process.stdout.write(`tend ${TEND_VERSION} (build ${TEND_BUILD})\n`);
    return EXIT.ok;
  }
  const verb = verbs.find((v) => v.name === name);
  if (!verb) {
    const options = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
    return fail(unknownVerb(name), options.includes('--json') || options.includes('-j'));
  }
  const read = readVerbArgs(verb, rest);
  if (read.help) {
    process.stdout.write(verbHelp(verb));
    return EXIT.ok;
  }
  if (read.problem) return verb.neverFails ? EXIT.ok : fail(read.problem, read.json);
  try {
    return await verb.run({ args: read.args, client: new TendClient(), stdout: process.stdout, stderr: process.stderr });
  } catch (err) {
    return verb.neverFails ? EXIT.ok : fail(err instanceof CliError ? err : internalError(err), read.json);
  }
}
