// A session's TERM is the terminal its screen is modelled as (xterm-256color),
// not whatever terminal ran `tend new` or started the server, unless the
// caller asks for another: `tend new --term`, "term" or an env's TERM in the API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, waitFor, type TestServer } from './harness.js';

/** Starts `sh` as the CLI or API would and reads back the TERM and COLORTERM it got. */
async function termOf(t: TestServer, target: string): Promise<string> {
  assert.equal((await t.cli(['send', target, '--enter', 'echo "term=[$TERM] colorterm=[$COLORTERM]"'])).code, 0);
  return waitFor(`${target} to print its TERM`, async () => {
    const text = (await t.cli(['screen', target])).stdout;
    return /^term=\[.*$/m.exec(text)?.[0];
  });
}

test("tend new from an xterm-kitty terminal gives the session xterm-256color; --term and the API's term or env.TERM choose another", { timeout: 120_000 }, async () => {
  // The CLI runs in kitty, and so does the server it starts: neither TERM may leak into a session.
  const t = startTestServer({ TERM: 'xterm-kitty', COLORTERM: 'truecolor' });
  try {
    assert.equal((await t.cli(['new', '--name', 'plain', '--', 'sh'])).code, 0);
    await t.holderPids();
    assert.equal(await termOf(t, ':plain'), 'term=[xterm-256color] colorterm=[truecolor]');

    assert.equal((await t.cli(['new', '--name', 'asked', '--term', 'screen-256color', '--', 'sh'])).code, 0);
    await t.holderPids();
    assert.equal(await termOf(t, ':asked'), 'term=[screen-256color] colorterm=[truecolor]');

    assert.equal((await t.cli(['split', ':plain', '--name', 'beside', '--', 'sh'])).code, 0);
    await t.holderPids();
    assert.equal(await termOf(t, ':beside'), 'term=[xterm-256color] colorterm=[truecolor]');

    // The API with no env of its own: the server's env, whose TERM (kitty's here) is not the session's.
    const bare = await t.api('POST', '/v1/sessions', { name: 'bare', argv: ['sh'] });
    assert.equal(bare.status, 201, JSON.stringify(bare.body));
    await t.holderPids();
    assert.equal(await termOf(t, ':bare'), 'term=[xterm-256color] colorterm=[truecolor]');

    // An env given through the API is the caller's word, TERM included; "term" wins over it.
    const path = process.env.PATH ?? '/usr/bin:/bin';
    assert.equal((await t.api('POST', '/v1/sessions', { name: 'own', argv: ['sh'], env: { PATH: path, TERM: 'vt100' } })).status, 201);
    assert.equal((await t.api('POST', '/v1/sessions', { name: 'both', argv: ['sh'], env: { PATH: path, TERM: 'vt100' }, term: 'xterm' })).status, 201);
    assert.equal((await t.api('POST', '/v1/sessions', { name: 'empty', argv: ['sh'], env: { PATH: path, TERM: '' } })).status, 201);
    await t.holderPids();
    assert.equal(await termOf(t, ':own'), 'term=[vt100] colorterm=[]');
    assert.equal(await termOf(t, ':empty'), 'term=[xterm-256color] colorterm=[]', 'an empty TERM is no TERM');
    assert.equal(await termOf(t, ':both'), 'term=[xterm] colorterm=[]');

    const bad = await t.api<{ error: { message: string } }>('POST', '/v1/sessions', { argv: ['sh'], term: '../../etc/evil' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /"term" must be a terminal type/);
    const badCli = await t.cli(['new', '--term', 'x term', '--', 'sh']);
    // The CLI refuses it itself, naming the option typed rather than the API's field.
    assert.equal(badCli.code, 2);
    assert.match(badCli.stderr, /^tend: --term "x term" is not a terminal type/);
  } finally {
    await t.dispose();
  }
});
