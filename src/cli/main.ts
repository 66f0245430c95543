// `tend VERB ...`: finds the verb, parses its options, runs it, and turns
// errors into one line and an exit code (2 for usage, 1 otherwise).
import { parseArgs } from 'node:util';
import { TendClient, CliError } from './client.js';
import type { Verb } from './verb.js';
import { newVerb } from './verbs/new.js';
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
import { awaitVerb } from './verbs/await.js';
import { shellIntegrationVerb } from './verbs/shell-integration.js';
import { openVerb } from './verbs/open.js';
import { logsVerb } from './verbs/logs.js';
import { completionVerb } from './verbs/completion.js';

export const verbs: Verb[] = [
  newVerb, attachVerb, lsVerb, splitVerb, sendVerb, screenVerb, searchVerb, commandsVerb, outputVerb, awaitVerb,
  killVerb, renameVerb, reviveVerb, openVerb, shellIntegrationVerb, serverVerb, logsVerb, completionVerb(() => verbs),
];

function helpText(): string {
  const width = Math.max(...verbs.map((v) => v.name.length));
  return `tend: terminals that outlive everything around them

usage: tend VERB [ARGS...]   (tend help VERB, or tend VERB --help, for more)

${verbs.map((v) => `  ${v.name.padEnd(width)}  ${v.summary}`).join('\n')}

Environment: TEND_HOME (default ~/.tend) holds the store, checkpoints and logs.
`;
}

/** The exit status of a program killed by SIGPIPE (128 + 13), as `seq | head` gives. */
const CLOSED_PIPE_EXIT = 141;

/**
 * `tend search ... | head`: the reader left, so there is nobody to tell;
 * end quietly, as programs killed by SIGPIPE do, never with a stack trace.
 */
function endQuietlyWhenOutputCloses(): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(CLOSED_PIPE_EXIT);
    throw err;
  });
}

export async function run(argv: string[]): Promise<number> {
  endQuietlyWhenOutputCloses();
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = name === 'help' ? rest[0] : undefined;
    const verb = topic ? verbs.find((v) => v.name === topic) : undefined;
    if (topic && !verb) {
      process.stderr.write(`tend: no verb "${topic}"\n${helpText()}`);
      return 2;
    }
    process.stdout.write(verb ? `${verb.usage}\n` : helpText());
    return 0;
  }
  if (name === '--version' || name === '-V') {
    const { TEND_VERSION } = await import('../common/version.js');
    process.stdout.write(`tend ${TEND_VERSION}\n`);
    return 0;
  }
  const verb = verbs.find((v) => v.name === name);
  if (!verb) {
    process.stderr.write(`tend: no verb "${name}"; \`tend help\` lists them\n`);
    return 2;
  }
  const dash = rest.indexOf('--');
  const before = dash === -1 ? rest : rest.slice(0, dash);
  const after = dash === -1 ? null : rest.slice(dash + 1);
  if (before.includes('--help') || before.includes('-h')) {
    process.stdout.write(`${verb.usage}\n`);
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: before, options: verb.options, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`tend ${verb.name}: ${(err as Error).message.split('\n')[0]}\nusage: ${verb.usage.split('\n')[0]}\n`);
    return 2;
  }
  try {
    return await verb.run({
      args: { values: parsed.values, positionals: parsed.positionals, rest: after },
      client: new TendClient(),
      stdout: process.stdout,
      stderr: process.stderr,
    });
  } catch (err) {
    if (err instanceof CliError) {
      process.stderr.write(`tend: ${err.message}\n`);
      return err.exitCode;
    }
    process.stderr.write(`tend: internal error: ${(err as Error).message ?? String(err)} (please report it)\n`);
    return 1;
  }
}
