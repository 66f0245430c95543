// What a shell needs to know to complete `tend`, read from the verb table:
// each verb's options (from parseArgs' config, described by its usage text)
// and what its operands are (from the usage's first line: TARGET, a|b|c, a
// free word), so a new verb or option completes without touching this folder.
import type { Verb } from '../verb.js';

/** What an option's value is, so the shell knows what to offer for it. */
export type ValueKind = 'directory' | 'word';

export interface OptionSpec {
  long: string;
  short: string | null;
  /** Null for a flag; otherwise the option takes a value of this kind. */
  value: ValueKind | null;
  description: string;
}

/** One operand slot: a session target, one of a few words, or anything. */
export type OperandSpec = { kind: 'target' } | { kind: 'choice'; choices: string[] } | { kind: 'word' };

export interface VerbSpec {
  name: string;
  summary: string;
  options: OptionSpec[];
  operands: OperandSpec[];
  /** The last operand may be given again and again (`TARGET...`). */
  lastRepeats: boolean;
  /** After a bare `--` comes a command line; otherwise more operands (text that starts with "-"). */
  commandAfterDashes: boolean;
}

/** Placeholders in a usage text that name a directory. */
const DIRECTORY_PLACEHOLDERS = new Set(['DIR', 'DIRECTORY']);
/** The words a usage writes for a session target. */
const TARGET_PLACEHOLDERS = new Set(['TARGET']);

export function completionGrammar(verbs: readonly Verb[]): VerbSpec[] {
  const specs = verbs.map((verb) => ({ name: verb.name, summary: verb.summary, options: optionsOf(verb), ...operandsOf(verb) }));
  // `tend help VERB` is the dispatcher's, not a verb of the table.
  const help: VerbSpec = { name: 'help', summary: 'show how to use a verb', options: [], operands: [{ kind: 'choice', choices: verbs.map((v) => v.name) }], lastRepeats: false, commandAfterDashes: false };
  return [...specs, help];
}

/**
 * The options the usage text names; one it does not name (an internal switch
 * such as `completion --list`) is not offered.
 */
function optionsOf(verb: Verb): OptionSpec[] {
  const specs: OptionSpec[] = [];
  for (const [long, config] of Object.entries(verb.options)) {
    const mention = new RegExp(`--${escapeRegExp(long)}(?![\\w-])(?: ([A-Z][A-Za-z=,.]*))?`).exec(verb.usage);
    if (!mention) continue;
    const placeholder = mention[1] ?? '';
    specs.push({
      long,
      short: config.short ?? null,
      value: config.type === 'string' ? (DIRECTORY_PLACEHOLDERS.has(placeholder) ? 'directory' : 'word') : null,
      description: describedOption(verb.usage, long) ?? (long === 'json' ? 'print JSON' : ''),
    });
  }
  return specs;
}

/**
 * The text after `--long [VALUE]` on the usage's option line, with the lines
 * under it that continue it (indented to the same column):
 * "  -C, --cwd DIR   working directory".
 */
function describedOption(usage: string, long: string): string | null {
  const lines = usage.split('\n');
  const pattern = new RegExp(`^(\\s+(?:-\\w, )?--${escapeRegExp(long)}(?: \\S+)?\\s{2,})(\\S.*)$`);
  for (let i = 0; i < lines.length; i++) {
    const match = pattern.exec(lines[i]!);
    if (!match) continue;
    const column = match[1]!.length;
    const parts = [match[2]!.trim()];
    for (let j = i + 1; j < lines.length && /^\s*\S/.test(lines[j]!) && lines[j]!.search(/\S/) === column; j++) parts.push(lines[j]!.trim());
    return parts.join(' ');
  }
  return null;
}

/**
 * A verb's operands: its `operands` ("TARGET [TEXT...]") when it declares
 * them, else its usage's first line, where `tend kill TARGET... [--json]`
 * has targets. The words one may choose from are the usage's (`tend server
 * start|stop|restart|status`), where `operands` may say only ACTION.
 */
function operandsOf(verb: Verb): Pick<VerbSpec, 'operands' | 'lastRepeats' | 'commandAfterDashes'> {
  const firstLine = verb.usage.split('\n')[0] ?? '';
  const synopsis = readOperands(synopsisOperands(firstLine));
  const declared = verb.operands === undefined ? synopsis : readOperands(verb.operands);
  const operands = declared.operands.map((operand, i) => {
    const fromSynopsis = synopsis.operands[i];
    return operand.kind === 'word' && fromSynopsis?.kind === 'choice' ? fromSynopsis : operand;
  });
  // A verb that keeps what follows `--` apart runs it as a command (or types it, for await).
  const commandAfterDashes = verb.afterDash !== undefined || /(^|[\s[])-- [A-Z]/.test(firstLine);
  return { operands, lastRepeats: declared.lastRepeats, commandAfterDashes };
}

/** The operand words of a synopsis: less `tend VERB`, bracketed option groups, and what follows a bare `--`. */
function synopsisOperands(firstLine: string): string {
  return firstLine
    .replace(/^tend \S+/, '')
    .replace(/[[(]-[^\])]*[\])](\.\.\.)?/g, ' ')
    .replace(/(^|\s)--(\s.*)?$/, ' ');
}

/** "TARGET [TEXT...]" as operand slots; `X...` repeats. */
function readOperands(words: string): { operands: OperandSpec[]; lastRepeats: boolean } {
  const operands: OperandSpec[] = [];
  let lastRepeats = false;
  for (const word of words.split(/\s+/).filter((w) => w !== '' && !w.startsWith('-'))) {
    const bare = word.replace(/^\[/, '').replace(/\]$/, '');
    lastRepeats = bare.endsWith('...');
    const name = bare.replace(/\.\.\.$/, '');
    if (TARGET_PLACEHOLDERS.has(name)) operands.push({ kind: 'target' });
    else if (name.includes('|')) operands.push({ kind: 'choice', choices: name.split('|') });
    else operands.push({ kind: 'word' });
  }
  return { operands, lastRepeats };
}

/** How an option is spelt on the command line: --long, and -s when it has a short form. */
export function optionNames(option: Pick<OptionSpec, 'long' | 'short'>): string[] {
  return option.short ? [`--${option.long}`, `-${option.short}`] : [`--${option.long}`];
}

/**
 * An operand as one word of a script's table, the same in every shell:
 * @target, @word, or the choices joined by '|'.
 */
export function operandToken(operand: OperandSpec): string {
  if (operand.kind === 'target') return '@target';
  if (operand.kind === 'word') return '@word';
  return operand.choices.join('|');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
