// A program that queries its terminal (DA1, DSR/CPR) gets exactly one answer
// per query — the server's — even with a browser attached: the page's xterm
// does not add its own replies to the input.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { WEB_TEST_TIMEOUT_MS, browserUnavailable, paneText, startWebHarness, typeInto, waitForLivePane } from './web-harness.js';

// Asks twice (DA1 and CPR) once the test says "go", reports when the first
// answers are in, then prints, as JSON, every byte its terminal gave it up to
// the "Z" the test types afterwards. Anything the page replied would travel
// the same socket before that Z, so it would be in the bytes.
const QUERY_PROGRAM = `
process.stdin.setRawMode(true);
let seen = '';
let asked = false;
let reported = false;
process.stdout.write('ready: type g\\r\\n');
process.stdin.on('data', (chunk) => {
  seen += chunk.toString('latin1');
  if (!asked && seen.includes('g')) {
    asked = true;
    seen = '';
    process.stdout.write('\\x1b[c\\x1b[6n');
  }
  if (asked && !reported && /\\x1b\\[\\?[0-9;]*c/.test(seen) && /\\x1b\\[[0-9]+;[0-9]+R/.test(seen)) {
    reported = true;
    process.stdout.write('\\r\\nanswered\\r\\n');
  }
  if (reported && seen.includes('Z')) {
    process.stdout.write('REPLIES ' + JSON.stringify(seen) + '\\r\\n');
    process.exit(0);
  }
});
`;

describe('terminal queries', { timeout: WEB_TEST_TIMEOUT_MS, skip: browserUnavailable() ?? false }, () => {
  test('DA1 and CPR asked with a page attached are answered once each, by the server', async (t) => {
    const scope = useTestScope(t);
    const h = await startWebHarness(scope);
    const script = join(h.server.home, 'query.cjs');
    writeFileSync(script, QUERY_PROGRAM);
    const id = await h.newSession({ name: 'asker', argv: [process.execPath, script] });
    const page = await h.open('/w/asker');
    await waitForLivePane(page, id);
    await waitFor(async () => (await paneText(page, id))?.includes('ready: type g'), { what: 'the program to start' });

    await typeInto(page, id, 'g');
    await waitFor(async () => (await paneText(page, id))?.includes('answered'), { what: 'the server to answer the queries' });
    await typeInto(page, id, 'Z');
    const text = await waitFor(async () => {
      const screen = await h.serverText(id);
      return /REPLIES (".*")/.exec(screen)?.[1] ?? null;
    }, { what: 'the program to report what it read' });
    const replies = JSON.parse(text) as string;
    const da = replies.match(/\x1b\[\?[0-9;]*c/g) ?? [];
    const cpr = replies.match(/\x1b\[[0-9]+;[0-9]+R/g) ?? [];
    assert.equal(da.length, 1, `one DA1 reply: ${JSON.stringify(replies)}`);
    assert.equal(cpr.length, 1, `one CPR reply: ${JSON.stringify(replies)}`);
    assert.equal(replies.replace(/\x1b\[\?[0-9;]*c/, '').replace(/\x1b\[[0-9]+;[0-9]+R/, ''), 'Z', 'nothing else reached the program');
  });
});
