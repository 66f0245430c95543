// A holder runs for weeks, so a new tend meets holders an older tend started.
// This builds the last holder that spoke only protocol version 1 from the
// project's own history and drives it with today's client.

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useTestScope } from '../support/test-scope.js';
import { waitFor } from '../support/wait-for.js';
import { ErrorCode, HolderConnection, HolderErrorReply } from '../../src/holder-client/index.js';
import { PROTOCOL_VERSION } from '../../src/protocol/holder-frames.js';
import { HOLDER_TEST_TIMEOUT_MS, startHolder } from './holder-fixture.js';
import { RAW_READY, newWriter, rawEcho } from './taken-log.js';

/** The last commit whose holder speaks protocol version 1 only. */
const LAST_VERSION_1_COMMIT = '237841cedd1c73ed3ab52e6348389fbb9f68fa2e';

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'holder', 'protocol.h'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`package root not found above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return dir;
}

/** Builds that holder into dir; null, and why, when this checkout has no such history (a shallow clone, a tarball). */
function buildVersion1Holder(dir: string): { path: string } | { missing: string } {
  try {
    const archive = execFileSync('git', ['-C', packageRoot(), 'archive', LAST_VERSION_1_COMMIT, 'holder'], { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
  } catch (err) {
    return { missing: `commit ${LAST_VERSION_1_COMMIT.slice(0, 12)} is not in this checkout: ${(err as Error).message.split('\n')[0]}` };
  }
  execFileSync('make', ['-s', '-C', join(dir, 'holder')], { stdio: ['ignore', 'ignore', 'pipe'] });
  return { path: join(dir, 'holder', 'build', 'tend-holder') };
}

describe('a holder started by an older tend', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test('a version-1 holder refuses HELLO 2; the client greets it again with 1, types with INPUT, and says it has no INPUT_FROM', async (t) => {
    const scope = useTestScope(t);
    const built = buildVersion1Holder(scope.tempDir('tend-h1-'));
    if ('missing' in built) {
      t.skip(built.missing);
      return;
    }
    const h = await startHolder(scope, { argv: rawEcho, holderPath: built.path });
    // Asked for version 2 only, it refuses: what the fallback is for.
    await assert.rejects(HolderConnection.connect(h.socketPath, { version: PROTOCOL_VERSION }), (err: unknown) => {
      assert.ok(err instanceof HolderErrorReply && err.holderCode === ErrorCode.VERSION, String(err));
      return true;
    });
    const conn = scope.own(await HolderConnection.connect(h.socketPath));
    assert.equal(conn.lastState.version, 1);
    assert.equal(conn.version, 1);
    assert.equal(conn.speaksInputAcks, false);
    assert.throws(() => conn.inputFrom(newWriter(), 0, new Uint8Array(1)), /protocol version 1, which has no INPUT_FROM/);
    assert.equal(await conn.acquire(), 'acquired');
    let output = '';
    conn.onReplay((e) => (output += Buffer.from(e.bytes).toString()));
    conn.onOutput((e) => (output += Buffer.from(e.bytes).toString()));
    await conn.dumpSince(0);
    conn.input('typed-into-an-old-holder');
    await waitFor(() => output.includes(`${RAW_READY}typed-into-an-old-holder`), { what: 'the echo', describe: () => JSON.stringify(output) });
  });
});
