// The soak: 100 sessions, viewers attaching and leaving, output and input, for
// 20 minutes in the full run (60 s in the short one). The server's resident
// memory and open file descriptors are sampled from /proc and fitted with a
// least-squares line: its slope should be flat, and no session may be lost.

import { FaultServer, sleep, waitFor } from '../lib/fault-server.js';
import { figure, zeroTarget, type Part } from '../lib/part.js';
import { Chooser } from '../lib/random.js';
import { leastSquaresSlope, sampleProcess, type ProcSample } from './proc-sample.js';
import { SoakViewer } from './soak-viewer.js';

const SESSIONS = 100;
/** Sessions that print on their own, once a second; the others answer what is typed. */
const TICKING_SESSIONS = 20;
export const FULL_SOAK_MINUTES = 20;
const SHORT_SECONDS = 60;
const FULL_SAMPLE_MS = 10_000;
const SHORT_SAMPLE_MS = 3_000;
/** The first part of a run is warm-up (JIT, heaps growing to size): left out of the fit. */
const WARM_UP_SHARE = 0.25;
const MAX_VIEWERS = 8;
const VIEWER_LIFE_MS: [number, number] = [500, 8_000];
const STEP_MS = 100;
const CREATE_BATCH = 10;
export const SOAK_SCROLLBACK_ROWS = 100;
export const SOAK_LIVE_ROWS = 50;
/**
 * Lines each session prints as it starts: more than its scrollback and the tallest viewer's
 * screen, so every screen is at its full size before the first sample. Typing alone fills an
 * answering session only after about 10 minutes (2 lines an input, 80 sessions sharing 8
 * inputs a second): a 5-minute soak without this measured screens filling (RSS +4 MiB/min),
 * and the same run with it was flat.
 */
const FILL_LINES = 3 * SOAK_SCROLLBACK_ROWS;
const FILL = `j=0; while [ $j -lt ${FILL_LINES} ]; do j=$((j+1)); echo "fill $j"; done; `;
const FILL_WAIT_MS = 120_000;
/** What "flat" allows over the fitted part: noise of a garbage-collected heap, not a leak. */
const FLAT_RSS_KB_PER_MIN = 512;
/**
 * Slopes are judged only over a soak this long: in a minute, viewers coming and going and the
 * heap growing to size move RSS and descriptors by more than any leak (CI's short run printed
 * −17 MiB/min), so a target there would pass or fail by chance.
 */
const JUDGED_SOAK_MS = 5 * 60_000;

/** A slope with its target, or (in a soak too short to tell) the slope alone, said so. */
function slopeFigure(name: string, value: string, target: string, met: boolean, judged: boolean) {
  return judged ? { name, value, target, met } : { name, value: `${value} (not judged: under ${JUDGED_SOAK_MS / 60_000} minutes)` };
}
const FLAT_FDS_PER_MIN = 0.5;

/** A soak session's program: one that prints every second, or one that answers each line typed; both fill their scrollback first. */
export function soakProgram(ticking: boolean): string[] {
  return ticking
    ? ['sh', '-c', `${FILL}i=0; while :; do i=$((i+1)); echo "tick $i"; sleep 1; done`]
    : ['sh', '-c', `${FILL}while IFS= read -r line; do echo "got: $line"; done`];
}

/** Resolves once a session holds its whole scrollback (SOAK_SCROLLBACK_ROWS rows above its screen). */
export async function waitScrollbackFull(server: FaultServer, id: string, timeoutMs: number): Promise<void> {
  await waitFor(`session ${id}'s scrollback to fill (${SOAK_SCROLLBACK_ROWS} rows)`, async () => {
    const res = await server.raw<{ scrollback?: { available?: number } }>('GET', `/v1/sessions/${id}/screen?format=text&scrollback=1`);
    return (res.body.scrollback?.available ?? 0) >= SOAK_SCROLLBACK_ROWS;
  }, timeoutMs, 200);
}

export const soakPart: Part = {
  name: 'soak',
  title: 'Soak: 100 sessions, viewers coming and going, input and output; memory and descriptors flat',
  async run(opts) {
    const seconds = opts.soakMinutes !== undefined ? opts.soakMinutes * 60 : opts.short ? SHORT_SECONDS : FULL_SOAK_MINUTES * 60;
    const sampleMs = opts.short ? SHORT_SAMPLE_MS : FULL_SAMPLE_MS;
    const choose = new Chooser(opts.seed);
    // Little scrollback, which each session fills as it starts (FILL_LINES): memory that grows
    // after that is a leak, not history filling up.
    const server = new FaultServer({ TEND_SCROLLBACK_ROWS: SOAK_SCROLLBACK_ROWS, TEND_LIVE_ROWS: SOAK_LIVE_ROWS });
    const viewers: Array<{ viewer: SoakViewer; until: number }> = [];
    try {
      await server.launch();
      const ids: string[] = [];
      // A few at a time: quicker than one by one, and no flood of spawns.
      for (let i = 0; i < SESSIONS; i += CREATE_BATCH) {
        const batch = Array.from({ length: Math.min(CREATE_BATCH, SESSIONS - i) }, (_, k) => {
          const n = i + k;
          return server.createSession(soakProgram(n < TICKING_SESSIONS), { name: `s${n}` });
        });
        for (const s of await Promise.all(batch)) ids.push(s.id);
      }
      for (const id of ids) await waitScrollbackFull(server, id, FILL_WAIT_MS);
      const pid = server.pid()!;
      const samples: ProcSample[] = [sampleProcess(pid)];
      const started = Date.now();
      let nextSample = started + sampleMs;
      let inputs = 0;
      let inputFailures = 0;
      let viewersOpened = 0;
      let viewerFailures = 0;
      while (Date.now() - started < seconds * 1000) {
        const now = Date.now();
        for (let k = viewers.length - 1; k >= 0; k--) {
          if (viewers[k]!.until <= now) {
            viewers[k]!.viewer.close();
            viewers.splice(k, 1);
          }
        }
        if (viewers.length < MAX_VIEWERS && choose.float() < 0.3) {
          try {
            const viewer = await SoakViewer.open(server.client.paths.serverSocket, choose.pick(ids), choose.int(40, 200), choose.int(10, 60));
            viewers.push({ viewer, until: now + choose.int(...VIEWER_LIFE_MS) });
            viewersOpened++;
          } catch (err) {
            viewerFailures++;
            opts.log(`  soak: a viewer could not connect: ${(err as Error).message}`);
          }
        }
        const target = choose.pick(ids.slice(TICKING_SESSIONS));
        const res = await server.raw('POST', `/v1/sessions/${target}/input`, { text: `line ${inputs}\n` }).catch((err: Error) => ({ status: 0, body: err.message }));
        inputs++;
        if (res.status !== 200) inputFailures++;
        if (Date.now() >= nextSample) {
          samples.push(sampleProcess(pid));
          nextSample += sampleMs;
          const last = samples[samples.length - 1]!;
          if (samples.length % 10 === 0) opts.log(`  soak: ${Math.round((Date.now() - started) / 1000)} s, RSS ${Math.round(last.rssKb / 1024)} MiB, ${last.fds} fds, ${viewers.length} viewers`);
        }
        await sleep(STEP_MS);
      }
      for (const v of viewers.splice(0)) v.viewer.close();
      samples.push(sampleProcess(pid));
      const sessions = await server.sessions();
      const running = sessions.filter((s) => s.status === 'running').length;
      const serverAlive = server.pid() === pid;

      const fitted = samples.slice(Math.floor(samples.length * WARM_UP_SHARE));
      const minutes = (s: ProcSample) => (s.atMs - started) / 60_000;
      const rssSlope = leastSquaresSlope(fitted.map((s) => [minutes(s), s.rssKb]));
      const fdSlope = leastSquaresSlope(fitted.map((s) => [minutes(s), s.fds]));
      const first = samples[0]!;
      const last = samples[samples.length - 1]!;
      const judged = last.atMs - started >= JUDGED_SOAK_MS;
      return {
        figures: [
          figure('duration, sessions, samples', `${Math.round((last.atMs - started) / 1000)} s, ${SESSIONS} sessions (${TICKING_SESSIONS} printing every second), ${samples.length} samples`),
          figure('inputs sent (acknowledged by the holder) / failed', `${inputs} / ${inputFailures}`),
          figure('viewers attached and left / could not connect', `${viewersOpened} / ${viewerFailures}`),
          figure('server RSS first / last', `${Math.round(first.rssKb / 1024)} / ${Math.round(last.rssKb / 1024)} MiB`),
          slopeFigure(`server RSS slope (least squares, after the first ${WARM_UP_SHARE * 100} %)`, `${Math.round(rssSlope)} KiB/min`, `flat (< ${FLAT_RSS_KB_PER_MIN} KiB/min)`, rssSlope < FLAT_RSS_KB_PER_MIN, judged),
          figure('server open fds first / last', `${first.fds} / ${last.fds}`),
          slopeFigure(`server open fd slope (least squares, after the first ${WARM_UP_SHARE * 100} %)`, `${fdSlope.toFixed(2)} /min`, `flat (< ${FLAT_FDS_PER_MIN} /min)`, fdSlope < FLAT_FDS_PER_MIN, judged),
          zeroTarget('sessions lost', SESSIONS - running),
          zeroTarget('input failures', inputFailures),
          { name: 'server up throughout (same process)', value: serverAlive ? 'yes' : 'no', target: 'yes', met: serverAlive },
        ],
        findings: [],
      };
    } finally {
      for (const v of viewers) v.viewer.close();
      await server.close();
    }
  },
};
