import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { useTestScope } from '../support/test-scope.js';
import { spawnHolder } from '../../src/holder-client/index.js';
import { HOLDER_TEST_TIMEOUT_MS, socketExists, testEnv } from './holder-fixture.js';

describe('a holder that cannot start says why', { timeout: HOLDER_TEST_TIMEOUT_MS }, () => {
  test('a program that does not exist is refused with the holder\'s own message naming it', async (t) => {
    const dir = useTestScope(t).tempDir('tend-h-');
    const socketPath = join(dir, 'h.sock');
    await assert.rejects(
      spawnHolder({ socketPath, cols: 80, rows: 24, cwd: dir, env: testEnv(), argv: ['nosuchcmd-tend'] }),
      (err: Error) => {
        assert.match(err.message, /nosuchcmd-tend/);
        assert.match(err.message, /No such file or directory/);
        return true;
      },
    );
    assert.equal(socketExists(socketPath), false, 'no socket is left behind');
  });

  test('a working directory that does not exist is refused naming the directory', async (t) => {
    const dir = useTestScope(t).tempDir('tend-h-');
    const missing = join(dir, 'no', 'such', 'dir');
    await assert.rejects(
      spawnHolder({ socketPath: join(dir, 'h.sock'), cols: 80, rows: 24, cwd: missing, env: testEnv(), argv: ['sh'] }),
      (err: Error) => {
        assert.ok(err.message.includes(missing), err.message);
        assert.match(err.message, /No such file or directory/);
        return true;
      },
    );
  });

  test('a socket path too long for a unix socket address is refused saying so', async (t) => {
    const dir = useTestScope(t).tempDir('tend-h-');
    const socketPath = join(dir, 'x'.repeat(120) + '.sock');
    await assert.rejects(
      spawnHolder({ socketPath, cols: 80, rows: 24, cwd: dir, env: testEnv(), argv: ['sh'] }),
      (err: Error) => {
        // e.g. "socket path is 144 bytes, more than the 107 a unix socket allows: ..."
        assert.match(err.message, /socket path/i);
        assert.match(err.message, /too long|more than/i);
        assert.ok(err.message.includes(socketPath), err.message);
        return true;
      },
    );
  });

  test('a size out of range is refused before anything starts', async (t) => {
    const dir = useTestScope(t).tempDir('tend-h-');
    await assert.rejects(
      spawnHolder({ socketPath: join(dir, 'h.sock'), cols: 0, rows: 24, cwd: dir, env: testEnv(), argv: ['sh'] }),
      (err: Error) => {
        assert.match(err.message, /cols/);
        return true;
      },
    );
  });

  test('a holder binary that does not exist is reported with its path', async (t) => {
    const dir = useTestScope(t).tempDir('tend-h-');
    const holderPath = join(dir, 'missing-holder');
    await assert.rejects(
      spawnHolder({ holderPath, socketPath: join(dir, 'h.sock'), cols: 80, rows: 24, cwd: dir, env: testEnv(), argv: ['sh'] }),
      (err: Error) => {
        assert.ok(err.message.includes(holderPath), err.message);
        return true;
      },
    );
  });
});
