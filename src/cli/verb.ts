// What a verb is: a name, its help, its options, and run(). The dispatcher
// (main.ts) and `tend help` are generated from the list of verbs.
import type { ParseArgsConfig } from 'node:util';
import type { TendClient } from './client.js';

export type VerbOptions = NonNullable<ParseArgsConfig['options']>;

export interface VerbArgs {
  values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  positionals: string[];
  /** Everything after a bare `--`. */
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
  run(ctx: VerbContext): Promise<number>;
}

export const jsonOption = { json: { type: 'boolean', short: 'j' } } as const;

export function printJson(stdout: NodeJS.WriteStream, value: unknown): void {
  stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
