import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AGENT_FLAVOURS, hookCommand, tendHooksSettings } from '../../common/agents/catalogue.js';
import { planInstall, planUninstall, type ChangeTarget } from './hook-changes.js';
import { readHooksStatus } from './hook-status.js';

const CLIENT = '/opt/tend/holder/build/tend-hook';
const claude: ChangeTarget = { kind: 'claude', hookClientPath: CLIENT, file: 'settings.json' };

function handler(command: string): { type: 'command'; command: string } {
  return { type: 'command', command };
}

type Settings = { hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ command: string }> }>> };

test('install takes out tend\'s handlers for events it no longer uses and a second one of an event, and keeps the user\'s', () => {
  const text = `${JSON.stringify({
    hooks: {
      PreCompact: [{ hooks: [handler(`${CLIENT} claude PreCompact`)] }],
      Stop: [
        { hooks: [handler('say done'), handler(`${CLIENT} claude Stop`)] },
        { hooks: [handler(`/old/tend-hook claude Stop`)] },
      ],
    },
  }, null, 2)}\n`;
  const change = planInstall(text, claude);
  assert.deepEqual(change.removed, ['PreCompact']);
  assert.deepEqual(change.staleCommands, ['/old/tend-hook claude Stop']);
  const after = JSON.parse(change.after) as Settings;
  assert.equal(after.hooks.PreCompact, undefined, 'an event left with no group goes');
  assert.deepEqual(after.hooks.Stop, [{ hooks: [handler('say done'), handler(`${CLIENT} claude Stop`)] }], "the hand-merged group keeps the user's handler and tend's, once");
  assert.equal(readHooksStatus(change.after, claude).state, 'installed');
});

test('uninstall takes tend\'s handler out of a group it shares with the user\'s, and leaves an empty group the user wrote', () => {
  const text = `${JSON.stringify({
    hooks: {
      Notification: [{ matcher: '', hooks: [] }],
      Stop: [{ matcher: '*', hooks: [handler(`${CLIENT} claude Stop`), handler('say done')] }],
      SessionEnd: [{ hooks: [handler(`'/a b/tend-hook' claude SessionEnd`)] }],
    },
  }, null, '\t')}`;
  const change = planUninstall(text, claude);
  assert.deepEqual(change.removed, ['Stop', 'SessionEnd']);
  assert.deepEqual(JSON.parse(change.after), { hooks: { Notification: [{ matcher: '', hooks: [] }], Stop: [{ matcher: '*', hooks: [handler('say done')] }] } });
  assert.ok(!change.after.endsWith('\n'), 'a file without a final newline gets none');
});

test('a file of only white space is filled; a one-line file stays one line and comes back whole', () => {
  const blank = planInstall(' \n', claude);
  assert.deepEqual(JSON.parse(blank.after), { hooks: tendHooksSettings(CLIENT, 'claude') });
  const oneLine = '{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}';
  const installed = planInstall(oneLine, claude).after;
  assert.equal(installed.includes('\n'), false);
  assert.ok(installed.includes(`{"hooks":[{"type":"command","command":${JSON.stringify(hookCommand(CLIENT, 'claude', 'Stop'))},"timeout":10}]}`), installed);
  assert.equal(planUninstall(installed, claude).after, oneLine);
});

test('status: installed, partly with the events missing, and handlers of another tend as stale', () => {
  const codex: ChangeTarget = { kind: 'codex', hookClientPath: CLIENT, file: 'hooks.json' };
  const full = planInstall('', codex).after;
  assert.deepEqual(readHooksStatus(full, codex), { state: 'installed', installed: [...AGENT_FLAVOURS.codex.hookEvents], missing: [], stale: [], refusedKeys: [], enableHooks: null });
  const settings = JSON.parse(full) as Settings;
  delete settings.hooks.Stop;
  settings.hooks.SessionStart![0]!.hooks[0]!.command = '/moved/tend-hook codex SessionStart';
  const partly = readHooksStatus(JSON.stringify(settings), codex);
  assert.equal(partly.state, 'partly');
  assert.deepEqual(partly.missing, ['SessionStart', 'Stop']);
  assert.deepEqual(partly.stale, [{ event: 'SessionStart', command: '/moved/tend-hook codex SessionStart' }]);
  assert.equal(readHooksStatus(null, codex).state, 'not-installed');
});

test('gemini: tools.enableHooks goes into the tools object of the text the clean-up left, not where it was before', () => {
  const gemini: ChangeTarget = { kind: 'gemini', hookClientPath: CLIENT, file: 'settings.json' };
  const text = `${JSON.stringify({
    hooks: { PreCompress: [{ hooks: [handler(`${CLIENT} gemini PreCompress`)] }], AfterAgent: [{ hooks: [handler('say done')] }] },
    tools: { sandbox: false },
  }, null, 2)}\n`;
  const change = planInstall(text, gemini);
  assert.equal(change.geminiHooks, 'turned-on');
  assert.deepEqual(change.removed, ['PreCompress']);
  const after = JSON.parse(change.after) as Settings & { tools: object };
  assert.deepEqual(after.tools, { sandbox: false, enableHooks: true });
  assert.deepEqual(Object.keys(after.hooks), ['AfterAgent', ...AGENT_FLAVOURS.gemini.hookEvents.filter((e) => e !== 'AfterAgent')]);
});
