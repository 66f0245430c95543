import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { diskTroubleOf, isPlainlyWorded } from './disk-trouble.js';
import { startFailureMessage } from './start-failure.js';
import { resolvePaths } from './paths.js';

function errnoError(code: string, path?: string, syscall = 'open'): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: something, ${syscall}${path ? ` '${path}'` : ''}`), { code, syscall, ...(path ? { path } : {}) });
}

describe('diskTroubleOf', () => {
  test('knows a full disk and a read-only one by errno, with the path the error names', () => {
    assert.deepEqual(diskTroubleOf(errnoError('ENOSPC', '/h/checkpoints/a.ckpt')), { kind: 'full', code: 'ENOSPC', reason: 'the disk is full', path: '/h/checkpoints/a.ckpt' });
    assert.equal(diskTroubleOf(errnoError('EDQUOT'))?.kind, 'full');
    assert.equal(diskTroubleOf(errnoError('EROFS'))?.kind, 'read-only');
    assert.equal(diskTroubleOf(errnoError('EACCES'))?.kind, 'read-only');
  });

  test('finds SQLite\'s full disk behind a store error that wraps it', () => {
    const sqlite = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    const store = Object.assign(new Error('cannot create session x: the disk holding /h/tend.db is full', { cause: sqlite }), { name: 'StoreError', code: 'WRITE_FAILED' });
    assert.equal(diskTroubleOf(store)?.code, 'ENOSPC');
    assert.equal(diskTroubleOf(Object.assign(new Error('ro'), { code: 'SQLITE_READONLY_DBMOVED' }))?.kind, 'read-only');
  });

  test('is null for other failures, and for a socket that may not be connected to', () => {
    assert.equal(diskTroubleOf(errnoError('ENOENT', '/x')), null);
    assert.equal(diskTroubleOf(errnoError('EACCES', '/run/h/a.sock', 'connect')), null);
    assert.equal(diskTroubleOf(new Error('boom')), null);
    assert.equal(diskTroubleOf(undefined), null);
  });
});

describe('startFailureMessage', () => {
  const paths = resolvePaths({ TEND_HOME: '/data/tend', TEND_RUNTIME_DIR: '/run/tend-rt' });

  test('a read-only TEND_HOME says what that means and what to do', () => {
    const said = startFailureMessage(errnoError('EROFS', '/data/tend/logs', 'mkdir'), paths);
    assert.match(said, /^TEND_HOME \/data\/tend .*cannot be written: the file system is read-only \(EROFS; cannot write \/data\/tend\/logs\)/);
    assert.match(said, /cannot start there; make it writable, or set TEND_HOME/);
  });

  test('a full runtime directory is named as such, with its own remedy', () => {
    const said = startFailureMessage(errnoError('ENOSPC', '/run/tend-rt/server.pid'), paths);
    assert.match(said, /^the disk holding the runtime directory \/run\/tend-rt .* is full/);
    const ro = startFailureMessage(errnoError('EACCES', '/run/tend-rt', 'mkdir'), paths);
    assert.match(ro, /set TEND_RUNTIME_DIR/);
  });

  test('anything else is the first line of its message', () => {
    assert.equal(startFailureMessage(new Error('one\ntwo'), paths), 'one');
  });
});
