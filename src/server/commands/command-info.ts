// A command as plain data, for whoever reads the index from another thread
// (the index lives beside its screen in the screen host), and the finished
// command with its output, read at its end mark, that `await` hands back.
import type { Disposable } from '../../common/lifecycle.js';
import type { CommandIndex, IndexedCommand } from './command-index.js';

export interface CommandInfo {
  number: number;
  commandLine: string;
  cwd: string | null;
  startedAt: number;
  endedAt: number | null;
  exitCode: number | null;
}

/** A finished command with its output as the screen held it at the end mark (null: it had already scrolled out). */
export interface FinishedCommand extends CommandInfo {
  output: string | null;
}

/** What `await` needs of a session's commands. */
export interface CommandWatch {
  /** The commands the index keeps, oldest first, and the running one's number (after the bytes written so far are parsed). */
  state(): Promise<{ commands: CommandInfo[]; running: number | null }>;
  /** A command's output as the buffer holds it now (null: unknown, or scrolled out). */
  output(number: number): Promise<{ text: string } | null>;
  onCommandFinished(listener: (command: FinishedCommand) => void): Disposable;
}

export function commandInfo(c: IndexedCommand): CommandInfo {
  return { number: c.number, commandLine: c.commandLine, cwd: c.cwd, startedAt: c.startedAt, endedAt: c.endedAt, exitCode: c.exitCode };
}

/** Calls `listener` at each command's end, with its output read right then (later output may push it out of the buffer). */
export function onFinishedWithOutput(index: CommandIndex, listener: (command: FinishedCommand) => void): Disposable {
  return index.onCommandFinished((command) => {
    const output = index.output(command.number);
    listener({ ...commandInfo(command), output: output?.text ?? null });
  });
}

/** A CommandWatch over an index in this thread (tests, and the screen host's own). */
export function watchIndex(index: CommandIndex): CommandWatch {
  return {
    // Each read waits for the terminal to parse what was written to it before: the index has then seen those marks.
    state: async () => {
      await parsed(index);
      return { commands: index.list().map(commandInfo), running: index.current()?.number ?? null };
    },
    output: async (number) => {
      await parsed(index);
      return index.output(number);
    },
    onCommandFinished: (listener) => onFinishedWithOutput(index, listener),
  };
}

function parsed(index: CommandIndex): Promise<void> {
  return new Promise((resolve) => index.terminal.write('', resolve));
}
