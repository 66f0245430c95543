import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isPlainlyWorded } from '../common/disk-trouble.js';
import { describeError } from './log.js';

function errnoError(code: string, path?: string, syscall = 'open'): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: something, ${syscall}${path ? ` '${path}'` : ''}`), { code, syscall, ...(path ? { path } : {}) });
}

describe('log lines', () => {
  test('a disk or store error is its message; any other error keeps its stack', () => {
    const full = errnoError('ENOSPC', '/h/x');
    assert.equal(describeError(full), full.message);
    assert.equal(isPlainlyWorded(Object.assign(new Error('the store is read-only'), { name: 'StoreError' })), true);
    const bug = new Error('boom');
    assert.match(describeError(bug), /\n\s+at /);
  });
});
