// Request targets that Node's HTTP parser lets through but no URL parser
// accepts (found while writing the fault suite's http-request-target fuzz
// target): each is a 400 with a JSON error, answered at once, and the server
// carries on. And the query's numbers the routes read (queryWholeNumber).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { CONTROL_TEST_TIMEOUT_MS, withServer } from './control-server.js';

/** How long a refusal may take; the old router never answered at all. */
const ANSWER_WITHIN_MS = 10_000;

/** One raw HTTP/1.1 request on the unix socket; the response's status and body, or an error if none comes. */
function rawRequest(socketPath: string, requestTarget: string, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath, () => socket.write(`${method} ${requestTarget} HTTP/1.1\r\nHost: tend\r\nConnection: close\r\n\r\n`));
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer to ${method} ${requestTarget.slice(0, 40)} within ${ANSWER_WITHIN_MS} ms`));
    }, ANSWER_WITHIN_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      clearTimeout(timer);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}

describe('request targets', { timeout: CONTROL_TEST_TIMEOUT_MS }, () => {
  test('a request target that is no URL (//[, //a b/c, //:99999) is a 400 with a JSON error, and the server answers after it', () =>
    withServer(async (s) => {
      assert.equal((await s.cli(['ls'])).code, 0); // starts the server
      for (const target of ['//[', '//a%20b@:x/v1/sessions', '//:99999/v1/sessions']) {
        const res = await rawRequest(s.client.paths.serverSocket, target);
        assert.equal(res.status, 400, `GET ${target}: ${res.body}`);
        const error = (JSON.parse(res.body) as { error: { code: string; message: string } }).error;
        assert.equal(error.code, 'bad_url');
        assert.match(error.message, /is not a URL path/);
      }
      assert.equal((await s.api('GET', '/v1/sessions')).status, 200);
    }));

  test('what the HTTP parser refuses (a method it does not know, a path over 16 KiB) is answered with a JSON error too, read to its end', () =>
    withServer(async (s) => {
      assert.equal((await s.cli(['ls'])).code, 0); // starts the server
      const brew = await rawRequest(s.client.paths.serverSocket, '/v1/sessions', 'BREW');
      assert.equal(brew.status, 400, brew.body);
      assert.equal((JSON.parse(brew.body) as { error: { code: string } }).error.code, 'bad_method');
      // Sent whole before the answer is read: the server must drain it rather than reset the connection.
      const long = await rawRequest(s.client.paths.serverSocket, `/v1/${'p'.repeat(100_000)}`);
      assert.equal(long.status, 431, long.body.slice(0, 200));
      assert.equal((JSON.parse(long.body) as { error: { code: string } }).error.code, 'request_too_large');
      assert.equal((await s.api('GET', '/v1/sessions')).status, 200);
    }));

  test('a query number that is not whole or out of range is a 400 naming the parameter and its range', () =>
    withServer(async (s) => {
      const id = await s.newShell(['sleep', '600'], { prompt: /^/ });
      for (const [query, says] of [
        [`screen?scrollback=-1`, '"scrollback" must be a whole number from 0 to 1000000'],
        [`screen?scrollback=1.5`, '"scrollback" must be a whole number from 0 to 1000000'],
        [`search?q=x&max=0`, '"max" must be a whole number from 1 to 10000'],
        [`search?q=x&max=ten`, '"max" must be a whole number from 1 to 10000'],
      ] as const) {
        const res = await s.api('GET', `/v1/sessions/${id}/${query}`);
        assert.equal(res.status, 400, query);
        assert.equal((res.body as { error: { message: string } }).error.message, says);
      }
      assert.equal((await s.api('GET', `/v1/sessions/${id}/screen?scrollback=10`)).status, 200);
    }));
});
