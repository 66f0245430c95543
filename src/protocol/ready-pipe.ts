// What a starting server tells its starter (the CLI, the bench) on the pipe
// it was given as --ready-fd: lines of text, the last one final.
//
//   RECOVERING <done>/<total>   sessions recovered so far (while there are any to recover)
//   OK <pid>                    serving
//   ERR <message>               could not start
//
// A server with many sessions, or sessions whose holders ran on while no
// server read them, can take longer to recover than a starter would wait for
// silence; progress lines keep it waiting, and let it say what is going on.

export type ReadyLine =
  | { kind: 'recovering'; done: number; total: number }
  | { kind: 'ok'; pid: number }
  /** `unanswered`: the server said nothing final (silent too long, or gone): its log says why. */
  | { kind: 'err'; message: string; unanswered?: boolean };

export function recoveringLine(done: number, total: number): string {
  return `RECOVERING ${done}/${total}`;
}

export function parseReadyLine(line: string): ReadyLine {
  const progress = /^RECOVERING (\d+)\/(\d+)$/.exec(line);
  if (progress) return { kind: 'recovering', done: Number(progress[1]), total: Number(progress[2]) };
  const ok = /^OK (\d+)$/.exec(line);
  if (ok) return { kind: 'ok', pid: Number(ok[1]) };
  return { kind: 'err', message: line.replace(/^ERR /, '') || 'the server said nothing' };
}

export interface ReadyWaitOptions {
  /** Give up after this long with no line at all (progress lines restart it). */
  silenceMs: number;
  onProgress?: (done: number, total: number) => void;
}

/**
 * Reads the starter's end of the pipe until the final line. Resolves (never
 * rejects) with it; silence for silenceMs, or the pipe closing first, is an
 * 'err' whose message says so.
 */
export function awaitReady(pipe: NodeJS.ReadableStream, options: ReadyWaitOptions): Promise<Exclude<ReadyLine, { kind: 'recovering' }>> {
  return new Promise((resolve) => {
    let text = '';
    let settled = false;
    let timer: NodeJS.Timeout;
    const settle = (line: Exclude<ReadyLine, { kind: 'recovering' }>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(line);
    };
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => settle({ kind: 'err', message: `the server did not report ready within ${options.silenceMs / 1000} s`, unanswered: true }), options.silenceMs);
    };
    arm();
    pipe.setEncoding('utf8'); // a character split across chunks stays whole
    pipe.on('data', (chunk: string) => {
      text += chunk;
      let newline: number;
      while (!settled && (newline = text.indexOf('\n')) >= 0) {
        const line = parseReadyLine(text.slice(0, newline).trim());
        text = text.slice(newline + 1);
        if (line.kind === 'recovering') {
          arm();
          options.onProgress?.(line.done, line.total);
        } else {
          settle(line);
        }
      }
    });
    pipe.on('end', () => {
      const rest = text.trim();
      if (rest !== '') {
        const line = parseReadyLine(rest);
        if (line.kind !== 'recovering') return settle(line);
      }
      settle({ kind: 'err', message: 'the server exited before it was ready', unanswered: true });
    });
  });
}
