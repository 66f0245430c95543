import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readVerbArgs } from './verb-args.js';
import type { Verb } from './verb.js';

function verb(fields: Partial<Verb>): Verb {
  return {
    name: 'try',
    summary: '',
    usage: 'tend try TARGET [--json]',
    options: { json: { type: 'boolean', short: 'j' }, size: { type: 'string', short: 's' }, env: { type: 'string', short: 'e', multiple: true } },
    run: async () => 0,
    ...fields,
  };
}

test('a string option takes the next word whatever it is, as getopt does', () => {
  const read = readVerbArgs(verb({}), ['-s', '-1', '--size', '--json', 'x']);
  assert.equal(read.problem, null);
  assert.equal(read.args.values.size, '--json');
  assert.equal(read.json, false, 'the word was a value, not the flag');
  assert.deepEqual(read.args.positionals, ['x']);
});

test('a repeatable option collects its values in order', () => {
  assert.deepEqual(readVerbArgs(verb({}), ['-e', 'A=1', '--env', 'B=2']).args.values.env, ['A=1', 'B=2']);
});

test('an unknown long option names the nearest; the usage line rides along', () => {
  const { problem, json } = readVerbArgs(verb({}), ['--jsno', '--json']);
  assert.equal(problem?.message, 'unknown option --jsno (did you mean --json?)');
  assert.equal(problem?.exitCode, 2);
  assert.deepEqual(problem?.details, { usage: 'tend try TARGET [--json]', candidates: ['--json'] });
  assert.equal(json, true, 'errors of a --json command line are said as JSON');
});

test('a flag given a value, and an option at the end without one, are refused by name', () => {
  assert.equal(readVerbArgs(verb({}), ['--json=1']).problem?.message, '--json takes no value (given "1")');
  assert.equal(readVerbArgs(verb({}), ['--size']).problem?.message, '--size needs a value');
  assert.equal(readVerbArgs(verb({}), ['--size', '--']).problem?.message, '--size needs a value', 'the -- ends the options');
});

test('operands: missing ones named (TARGET with what it is), extra ones refused, repeats and optionals allowed', () => {
  const one = verb({ operands: 'TARGET NAME' });
  assert.match(readVerbArgs(one, []).problem!.message, /^missing TARGET \(a session: /);
  assert.equal(readVerbArgs(one, ['a']).problem?.message, 'missing NAME');
  assert.equal(readVerbArgs(one, ['a', 'b']).problem, null);
  assert.equal(readVerbArgs(one, ['a', 'b', 'c']).problem?.message, 'unexpected argument "c"');
  assert.equal(readVerbArgs(verb({ operands: '' }), ['x']).problem?.message, 'unexpected argument "x"');
  assert.equal(readVerbArgs(verb({ operands: 'TARGET [TEXT...]' }), ['a', 'b', 'c', 'd']).problem, null);
  assert.equal(readVerbArgs(verb({ operands: '[TARGET]' }), []).problem, null);
  assert.equal(readVerbArgs(verb({}), ['a', 'b', 'c']).problem, null, 'a verb that declares none checks its own');
});

test('after --: kept apart for a verb that runs a command, operands for any other', () => {
  const runs = verb({ operands: 'TARGET', afterDash: 'CMD ARGS...' });
  const read = readVerbArgs(runs, [':x', '--', 'vim', '-u', 'NONE']);
  assert.equal(read.problem, null);
  assert.deepEqual(read.args.positionals, [':x']);
  assert.deepEqual(read.args.rest, ['vim', '-u', 'NONE']);
  const types = readVerbArgs(verb({ operands: 'TARGET [TEXT...]' }), [':x', '--', '-n', '--json']);
  assert.deepEqual(types.args.positionals, [':x', '-n', '--json']);
  assert.equal(types.args.rest, null);
  assert.equal(types.json, false);
});

test("a command's words before -- are said to go after it, quoted as a shell needs", () => {
  const runs = verb({ operands: 'TARGET', afterDash: 'CMD ARGS...' });
  assert.equal(readVerbArgs(runs, [':x', 'vim', 'a file']).problem?.message,
    "unexpected argument \"vim\": put CMD ARGS... after --, as in `tend try :x -- vim 'a file'`");
  assert.equal(readVerbArgs(runs, [':x', 'vim', '-u', 'NONE']).problem?.message,
    'unknown option -u: CMD ARGS... go after --, as in `tend try :x -- vim -u NONE`');
  assert.equal(readVerbArgs(runs, ['-u']).problem?.message, 'unknown option -u', 'before any command word it is only unknown');
});

test('--help or -h wins over anything wrong on the line', () => {
  const read = readVerbArgs(verb({ operands: 'TARGET' }), ['--bogus', '-h']);
  assert.equal(read.help, true);
});
