// `tend completion SHELL`: the script for each shell tend completes in.
import type { Verb } from '../verb.js';
import { completionGrammar } from './grammar.js';
import { thisTend } from './callback.js';
import { bashCompletion } from './bash.js';
import { zshCompletion } from './zsh.js';
import { fishCompletion } from './fish.js';

const WRITERS = { bash: bashCompletion, zsh: zshCompletion, fish: fishCompletion } as const;

export type CompletedShell = keyof typeof WRITERS;
export const COMPLETED_SHELLS = Object.keys(WRITERS) as CompletedShell[];

export function isCompletedShell(name: string): name is CompletedShell {
  return Object.hasOwn(WRITERS, name);
}

export function completionScript(shell: CompletedShell, verbs: readonly Verb[]): string {
  return WRITERS[shell](completionGrammar(verbs), thisTend());
}
