// What a verb is: a name, its help, its options, the words it takes, and
// run(). The dispatcher (main.ts), `tend help` and the argument checks
// (verb-args.ts) are generated from the list of verbs.
import type { ParseArgsConfig } from 'node:util';
import type { TendClient } from './client.js';
import type { ExitMeaning } from './exit-codes.js';

export type VerbOptions = NonNullable<ParseArgsConfig['options']>;

export interface VerbArgs {
  values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  positionals: string[];
  /** Everything after a bare `--`, for a verb with `afterDash`; null when there was no `--`. */
  rest: string[] | null;
}

export interface VerbContext {
  args: VerbArgs;
  client: TendClient;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

export interface Verb {
  name: string;
  summary: string;
  usage: string;
  options: VerbOptions;
  /**
   * The words it takes besides options, as its usage names them: "TARGET
   * NAME", "TARGET [TEXT...]", "" for none. `[X]` is optional, `X...` one or
   * more. Checked before run(): a missing or extra word is a usage error.
   * Left out, the verb checks its words itself.
   */
  operands?: string;
  /**
   * What follows a bare `--` ("CMD ARGS..."), kept apart in args.rest. A
   * verb without it takes the words after `--` as operands (so text that
   * starts with "-" can be given).
   */
  afterDash?: string;
  /** Exit statuses with a meaning of the verb's own, shown in its --help. */
  exits?: ExitMeaning[];
  /**
   * Run by a program that must never see it fail (an agent's hook: exit 2
   * blocks the agent's turn, its stderr is shown): a wrong command line or
   * any error is not said and exits 0. --help still prints the help.
   */
  neverFails?: boolean;
  run(ctx: VerbContext): Promise<number>;
}

export const jsonOption = { json: { type: 'boolean', short: 'j' } } as const;

export function printJson(stdout: NodeJS.WriteStream, value: unknown): void {
  stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
