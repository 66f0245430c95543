import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultHolderPath, holderArguments, parseReadyLine } from './spawn-holder.js';

describe('spawnHolder pieces', () => {
  test('parses OK with both pids', () => {
    assert.deepEqual(parseReadyLine('OK 123 456'), { holderPid: 123, childPid: 456 });
  });

  test("an ERR line becomes an Error whose message is the holder's own", () => {
    const err = parseReadyLine("ERR cannot run 'nosuchcmd': No such file or directory");
    assert.ok(err instanceof Error);
    assert.equal(err.message, "cannot run 'nosuchcmd': No such file or directory");
  });

  test('anything else is reported as unreadable, quoted', () => {
    const err = parseReadyLine('OK twelve');
    assert.ok(err instanceof Error && err.message === 'holder sent an unreadable ready line: "OK twelve"');
  });

  test('builds the command line with the ready fd and the program after --', () => {
    assert.deepEqual(
      holderArguments({ socketPath: '/s', cols: 80, rows: 24, cwd: '/w', env: {}, argv: ['sh', '-c', '--x'], ringBytes: 65536, exitGraceSeconds: 1, logPath: '/l' }),
      ['--socket', '/s', '--cols', '80', '--rows', '24', '--cwd', '/w', '--ready-fd', '3', '--ring', '65536', '--exit-grace', '1', '--log', '/l', '--', 'sh', '-c', '--x'],
    );
    assert.throws(() => holderArguments({ socketPath: '/s', cols: 80, rows: 24, cwd: '/w', env: {}, argv: [] }), /argv must name a program/);
  });

  test('the default holder path is $TEND_HOLDER when set, else the built binary in the package', () => {
    const saved = process.env.TEND_HOLDER;
    try {
      process.env.TEND_HOLDER = '/opt/other/tend-holder';
      assert.equal(defaultHolderPath(), '/opt/other/tend-holder');
      delete process.env.TEND_HOLDER;
      assert.match(defaultHolderPath(), /\/holder\/build\/tend-holder$/);
      assert.ok(existsSync(join(defaultHolderPath(), '..', '..', 'protocol.h')), 'it points into the holder folder of this package');
    } finally {
      if (saved === undefined) delete process.env.TEND_HOLDER;
      else process.env.TEND_HOLDER = saved;
    }
  });
});
