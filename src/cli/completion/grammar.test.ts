import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Verb } from '../verb.js';
import { completionGrammar } from './grammar.js';

function verb(fields: Partial<Verb> & Pick<Verb, 'name' | 'usage'>): Verb {
  return { summary: `${fields.name} things`, options: {}, run: async () => 0, ...fields };
}

test('operands come from the synopsis: targets, a repeated target, choices, free words; option groups and a command after -- are not operands', () => {
  const [kill, server, send, split] = completionGrammar([
    verb({ name: 'kill', usage: 'tend kill TARGET... [--json]' }),
    verb({ name: 'server', usage: 'tend server start|stop|restart|status [--json]' }),
    verb({ name: 'send', usage: 'tend send TARGET [TEXT...] [--keys K,K...] [--enter]' }),
    verb({ name: 'split', usage: 'tend split TARGET [--right | --down] [--name N] [-- CMD ARGS...]' }),
  ]);
  assert.deepEqual([kill!.operands, kill!.lastRepeats, kill!.commandAfterDashes], [[{ kind: 'target' }], true, false]);
  assert.deepEqual(server!.operands, [{ kind: 'choice', choices: ['start', 'stop', 'restart', 'status'] }]);
  assert.deepEqual([send!.operands, send!.lastRepeats], [[{ kind: 'target' }, { kind: 'word' }], true]);
  assert.deepEqual([split!.operands, split!.commandAfterDashes], [[{ kind: 'target' }], true]);
});

test('declared operands win, but the words to choose from are the synopsis\'s', () => {
  const [server] = completionGrammar([
    verb({ name: 'server', usage: 'tend server start|stop|restart|status [--json]', operands: '[ACTION]' }),
  ]);
  assert.deepEqual([server!.operands, server!.lastRepeats], [[{ kind: 'choice', choices: ['start', 'stop', 'restart', 'status'] }], false]);
});

test('options: a DIR value completes directories, descriptions join their continuation lines, and one the usage never names is left out', () => {
  const [made] = completionGrammar([
    verb({
      name: 'new',
      usage: `tend new [--cwd DIR] [--term TERM] [--json]

  -C, --cwd DIR     working directory
  -t, --term TERM   the session's TERM (default xterm-256color,
                    what every viewer models)`,
      options: { cwd: { type: 'string', short: 'C' }, term: { type: 'string', short: 't' }, json: { type: 'boolean' }, list: { type: 'string' } },
    }),
  ]);
  assert.deepEqual(made!.options, [
    { long: 'cwd', short: 'C', value: 'directory', description: 'working directory' },
    { long: 'term', short: 't', value: 'word', description: "the session's TERM (default xterm-256color, what every viewer models)" },
    { long: 'json', short: null, value: null, description: 'print JSON' },
  ]);
});

test('help is offered as a verb whose operand is any verb', () => {
  const grammar = completionGrammar([verb({ name: 'ls', usage: 'tend ls' }), verb({ name: 'kill', usage: 'tend kill TARGET...' })]);
  assert.deepEqual(grammar.at(-1), { name: 'help', summary: 'show how to use a verb', options: [], operands: [{ kind: 'choice', choices: ['ls', 'kill'] }], lastRepeats: false, commandAfterDashes: false });
});
