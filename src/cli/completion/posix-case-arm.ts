// The `case` arm bash's and zsh's scripts share for a verb: the shell
// variables their completion function reads (flags, options that take a
// value, options that take a directory, operands, and what follows `--`).
// Only how a flag is written differs: zsh's carry their descriptions.
import { optionNames, operandToken, type OptionSpec, type VerbSpec } from './grammar.js';
import { posixQuote } from './shell-quote.js';

export function posixVerbCaseArm(verb: VerbSpec, flagWords: (option: OptionSpec) => string[] = optionNames): string {
  const flags = verb.options.flatMap(flagWords);
  const valued = verb.options.filter((o) => o.value !== null).flatMap(optionNames);
  const directories = verb.options.filter((o) => o.value === 'directory').flatMap(optionNames);
  const assignments = [
    `flags=(${flags.join(' ')})`,
    `valued=(${valued.join(' ')})`,
    `directories=(${directories.join(' ')})`,
    `operands=(${verb.operands.map(operandToken).map(posixQuote).join(' ')})`,
    `repeats=${verb.lastRepeats ? 1 : 0}`,
    `dash_command=${verb.commandAfterDashes ? 1 : 0}`,
  ];
  return `    ${posixQuote(verb.name)}) ${assignments.join('; ')} ;;`;
}
