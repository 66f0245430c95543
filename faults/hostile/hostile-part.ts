// Hostile requests: every one answered with a 4xx and a JSON error naming
// what was wrong, not one byte typed into the program of the session they aim
// at (it writes down every byte it reads), and the same server up at the end.

import { request } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FaultServer, REQUEST_TIMEOUT_MS, repoRoot, waitFor } from '../lib/fault-server.js';
import { figure, zeroTarget, type Part } from '../lib/part.js';
import { hostileRequests, type HostileRequest } from './requests.js';

/** The fence after the hostile requests: a good input, so "nothing arrived" is read after everything was handled. */
const FENCE = 'FENCE\n';

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** One request with the body exactly as given (the CLI's client would refuse to send most of these). */
function send(socketPath: string, req: HostileRequest): Promise<Answer> {
  const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
  return new Promise((resolve, reject) => {
    const r = request(
      { socketPath, method: req.method, path: req.path, agent: false, timeout: REQUEST_TIMEOUT_MS, headers: body ? { 'content-type': 'application/json', 'content-length': body.length } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error('no answer in time')));
    r.on('error', reject);
    r.end(body);
  });
}

/** What is wrong with an answer to a hostile request, or null when it is a proper refusal. */
function judge(answer: Answer): string | null {
  if (answer.status < 400 || answer.status > 499) return `answered ${answer.status}`;
  if (!answer.contentType.startsWith('application/json')) return `${answer.status} without a JSON body (${answer.contentType || 'no content-type'}: ${JSON.stringify(answer.text.slice(0, 80))})`;
  try {
    const error = (JSON.parse(answer.text) as { error?: { code?: unknown; message?: unknown } }).error;
    if (typeof error?.code !== 'string' || typeof error.message !== 'string' || error.message === '') return `${answer.status} whose JSON has no error code and message`;
    if (/\n\s+at /.test(error.message)) return `${answer.status} with a stack trace in its message`;
  } catch {
    return `${answer.status} whose body is not JSON`;
  }
  return null;
}

export const hostilePart: Part = {
  name: 'hostile',
  title: 'Hostile requests: every one a 4xx with a JSON error, nothing typed, the server up',
  async run(opts) {
    const server = new FaultServer();
    try {
      await server.launch();
      const pidBefore = server.pid();
      const sinkFile = join(server.home, 'sink.bin');
      writeFileSync(sinkFile, '');
      const sink = await server.createSession([process.execPath, join(repoRoot, 'dist', 'faults', 'programs', 'slow-reader.js'), sinkFile, String(64 * 1024 * 1024)], { name: 'sink' });
      await waitFor('the sink program to be ready', async () => (await server.api<{ text: string }>('GET', `/v1/sessions/${sink.id}/screen`)).text.includes('ready'));
      const sessionsBefore = (await server.sessions()).length;

      const findings: string[] = [];
      const requests = hostileRequests();
      let refused = 0;
      let notRefused = 0;
      let noAnswer = 0;
      for (const req of requests) {
        const path = req.path.replace('SINK', sink.id);
        const body = req.body === undefined || typeof req.body === 'string' || Buffer.isBuffer(req.body) ? req.body : JSON.parse(JSON.stringify(req.body).replaceAll('SINK', sink.id));
        let verdict: string | null;
        try {
          verdict = judge(await send(server.client.paths.serverSocket, { ...req, path, body }));
        } catch (err) {
          verdict = `no answer: ${(err as Error).message}`;
          noAnswer++;
        }
        if (verdict === null) refused++;
        else {
          notRefused++;
          findings.push(`${req.what}: ${verdict}`);
          opts.log(`  hostile: ${req.what}: ${verdict}`);
        }
      }

      // Nothing typed: a good input as a fence, then the program must have read that and only that.
      await server.api('POST', `/v1/sessions/${sink.id}/input`, { text: FENCE });
      const read = await waitFor('the fence to reach the sink program', () => {
        const text = readFileSync(sinkFile, 'latin1');
        return text.endsWith(FENCE) ? text : null;
      });
      const strayBytes = read.length - FENCE.length;
      if (strayBytes > 0) findings.push(`the program read ${strayBytes} bytes before the fence: ${JSON.stringify(read.slice(0, 120))}`);

      const pidAfter = server.pid();
      const healthy = (await server.client.isRunning()) !== null && pidAfter === pidBefore;
      const sessionsAfter = await server.sessions();
      const created = sessionsAfter.length - sessionsBefore;
      if (created > 0) findings.push(`${created} sessions were created by requests that should have been refused`);
      return {
        figures: [
          figure('hostile requests', requests.length),
          figure('refused with a 4xx and a JSON error', refused),
          zeroTarget('answered otherwise (2xx, 5xx, not JSON)', notRefused - noAnswer),
          zeroTarget('not answered', noAnswer),
          zeroTarget('bytes that reached the program', strayBytes),
          zeroTarget('sessions created by refused requests', Math.max(0, created)),
          { name: 'server up afterwards (same process)', value: healthy ? 'yes' : 'no', target: 'yes', met: healthy },
        ],
        findings,
      };
    } finally {
      await server.close();
    }
  },
};
