import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentHooksHint } from './hooks-hint.js';
import { tendHooksSettings } from '../../common/agents/catalogue.js';

function withHome(fn: (home: string) => void): void {
  const home = mkdtempSync(join(tmpdir(), 'tend-hint-'));
  try {
    fn(home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

test('Claude gets no hint: tend passes its hooks for the run', () => {
  withHome((home) => assert.equal(agentHooksHint('claude', { HOME: home }), null));
});

test('Gemini: a hint without tend\'s hooks, another while hooks are off, none once both are there', () => {
  withHome((home) => {
    const env = { HOME: home };
    const file = join(home, '.gemini', 'settings.json');
    assert.equal(agentHooksHint('gemini', env), `tend's hooks are not in ${file}, so tend cannot tell Gemini CLI's state: run \`tend hooks install gemini\``);
    mkdirSync(join(home, '.gemini'));
    // The user's own hook is not tend's.
    writeFileSync(file, JSON.stringify({ hooks: { AfterAgent: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }] } }));
    assert.match(agentHooksHint('gemini', env) ?? '', /^tend's hooks are not in/);
    const hooks = tendHooksSettings('/opt/tend/holder/build/tend-hook', 'gemini');
    writeFileSync(file, JSON.stringify({ hooks }));
    assert.equal(agentHooksHint('gemini', env), `hooks are off in ${file} ("tools": {"enableHooks": true} turns them on): run \`tend hooks install gemini\``);
    writeFileSync(file, JSON.stringify({ tools: { enableHooks: true }, hooks }));
    assert.equal(agentHooksHint('gemini', env), null);
  });
});

test('Codex: CODEX_HOME is where its hooks.json is; a file that is not JSON is said, not guessed', () => {
  withHome((home) => {
    const codexHome = join(home, 'elsewhere');
    mkdirSync(codexHome);
    const env = { HOME: home, CODEX_HOME: codexHome };
    assert.match(agentHooksHint('codex', env) ?? '', new RegExp(`not in ${join(codexHome, 'hooks.json')}.*then trust them in Codex's /hooks screen$`));
    writeFileSync(join(codexHome, 'hooks.json'), JSON.stringify({ hooks: tendHooksSettings('/x/tend-hook', 'codex') }));
    assert.equal(agentHooksHint('codex', env), null);
    writeFileSync(join(codexHome, 'hooks.json'), '{"hooks": {');
    assert.match(agentHooksHint('codex', env) ?? '', /^could not read .*hooks\.json to see whether tend's hooks are there/);
  });
});
