// A verb's command line, read against the verb's table (verb.ts) in one
// place, so every verb refuses the same mistakes in the same words: an
// unknown option (with the nearest one), an option without its value, a
// value given to a flag, a missing or an extra word. A string option takes
// the next word whatever it is, as getopt does, so `--timeout -1` reaches
// the verb, which says what -1 is not.
import { parseArgs } from 'node:util';
import { nearest } from '../common/nearest.js';
import { usageError, type CliError } from './cli-error.js';
import { shellLine } from './format.js';
import type { Verb, VerbArgs } from './verb.js';

/** What an operand is, said when it is missing. */
const OPERAND_HINTS: Record<string, string> = {
  TARGET: 'a session: its id, :name, or index from `tend ls`',
};

export interface ReadVerbArgs {
  args: VerbArgs;
  /** --json was asked for: errors are said as JSON too, even one in the command line. */
  json: boolean;
  /** --help or -h was given: show the verb's help and do nothing else. */
  help: boolean;
  /** The first thing wrong with the command line, or null. */
  problem: CliError | null;
}

type Token = ReturnType<typeof parseArgs>['tokens'] extends Array<infer T> | undefined ? T : never;

export function readVerbArgs(verb: Verb, words: readonly string[]): ReadVerbArgs {
  const dash = words.indexOf('--');
  const before = dash === -1 ? [...words] : words.slice(0, dash);
  const after = dash === -1 ? null : words.slice(dash + 1);
  // Not strict: every word becomes a token, and the words for what is wrong are ours, not the parser's.
  const { tokens } = parseArgs({ args: before, options: verb.options, allowPositionals: true, strict: false, tokens: true });
  const options = tokens.filter((t): t is Extract<Token, { kind: 'option' }> => t.kind === 'option');
  const known = (name: string) => Object.hasOwn(verb.options, name);
  const help = options.some((t) => !known(t.name) && (t.name === 'help' || t.name === 'h'));
  const json = options.some((t) => t.name === 'json' && known('json'));

  const values: VerbArgs['values'] = {};
  let problem: CliError | null = null;
  const refuse = (message: string, candidates?: string[]) => {
    problem ??= usageError(message, { usage: usageLine(verb), ...(candidates?.length ? { candidates } : {}) });
  };
  for (const t of options) {
    const spec = verb.options[t.name];
    if (spec === undefined) {
      const [said, close] = unknownOption(verb, t.rawName);
      const moved = close.length === 0 ? commandMovedAfterDash(verb, tokens, before, t.index) : null;
      refuse(moved === null ? said : `${said}: ${verb.afterDash} go after --, as in \`${moved}\``, close);
      continue;
    }
    if (spec.type === 'boolean') {
      if (t.value !== undefined) refuse(`${t.rawName} takes no value (given "${t.value}")`);
      else values[t.name] = true;
      continue;
    }
    if (t.value === undefined) {
      refuse(`${t.rawName} needs a value`);
      continue;
    }
    if (spec.multiple) values[t.name] = [...((values[t.name] as string[] | undefined) ?? []), t.value];
    else values[t.name] = t.value;
  }

  const positionals = tokens.flatMap((t) => (t.kind === 'positional' ? [t.value] : []));
  // Without a use of its own for `--`, what follows it is operands (text that starts with "-").
  const keepsRest = verb.afterDash !== undefined;
  if (!keepsRest && after !== null) positionals.push(...after);
  const args: VerbArgs = { values, positionals, rest: keepsRest ? after : null };
  if (problem === null && verb.operands !== undefined) {
    const wrong = operandProblem(verb, verb.operands, positionals);
    if (wrong !== null) refuse(wrong);
  }
  return { args, json, help, problem };
}

/**
 * `tend new vim -u NONE`: an unknown option after the words of a command
 * is most likely the command's own, which goes after --. The command line
 * with it there, or null when the option came before any command word.
 */
function commandMovedAfterDash(verb: Verb, tokens: readonly Token[], words: readonly string[], optionIndex: number): string | null {
  if (verb.afterDash === undefined || verb.operands === undefined) return null;
  // The verb's own operands (TARGET) stay before --; what a repeating operand would take is the command.
  const kept = operandWords(verb.operands).filter((w) => !w.repeats).length;
  const positionals = tokens.filter((t): t is Extract<Token, { kind: 'positional' }> => t.kind === 'positional');
  const start = positionals[kept];
  if (start === undefined || start.index > optionIndex) return null;
  return shellLine(['tend', verb.name, ...positionals.slice(0, kept).map((p) => p.value), '--', ...words.slice(start.index)]);
}

/** The usage's first line: the verb's synopsis. */
function usageLine(verb: Verb): string {
  return verb.usage.split('\n')[0]!;
}

function unknownOption(verb: Verb, rawName: string): [string, string[]] {
  const typed = rawName.replace(/^-+/, '');
  const names = Object.keys(verb.options);
  const close = rawName.startsWith('--') ? nearest(typed, names).map((n) => `--${n}`) : [];
  const suggestion = close.length > 0 ? ` (did you mean ${close.join(' or ')}?)` : '';
  return [`unknown option ${rawName}${suggestion}`, close];
}

interface OperandWord {
  name: string;
  optional: boolean;
  repeats: boolean;
}

function operandWords(spec: string): OperandWord[] {
  return spec.split(/\s+/).filter((w) => w !== '').map((w) => ({
    name: w.replace(/[[\].]/g, ''),
    optional: w.startsWith('['),
    repeats: w.endsWith('...') || w.endsWith('...]'),
  }));
}

/** Why these words do not fit the verb's operands, or null when they do. */
function operandProblem(verb: Verb, spec: string, given: string[]): string | null {
  const words = operandWords(spec);
  const required = words.filter((w) => !w.optional).length;
  if (given.length < required) {
    const missing = words.filter((w) => !w.optional)[given.length]!;
    const hint = OPERAND_HINTS[missing.name];
    return `missing ${missing.name}${hint ? ` (${hint})` : ''}`;
  }
  if (words.some((w) => w.repeats) || given.length <= words.length) return null;
  const extra = given.slice(words.length);
  const said = `unexpected argument ${JSON.stringify(extra[0])}`;
  if (verb.afterDash === undefined) return said;
  return `${said}: put ${verb.afterDash} after --, as in \`${shellLine(['tend', verb.name, ...given.slice(0, words.length), '--', ...extra])}\``;
}
