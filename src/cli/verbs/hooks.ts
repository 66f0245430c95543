// `tend hooks install|uninstall|status AGENT`: tend's hook entries in the
// user settings of an agent a person starts themselves in a tend terminal.
// Needs no server: it only edits (or reads) the agent's file.
import type { Verb } from '../verb.js';
import { jsonOption } from '../verb.js';
import { usageError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { nearest } from '../../common/nearest.js';
import type { AgentKind } from '../../protocol/api/agents.js';
import { AGENT_FLAVOURS } from '../../common/agents/catalogue.js';
import { defaultHookClientPath } from '../../common/agents/hook-client-path.js';
import { agentSettingsFile } from '../hooks/settings-location.js';
import { hookClientsOf } from '../hooks/hook-notes.js';
import { changeHooks, hooksStatus, type ChangeResult, type StatusResult } from '../hooks/hook-actions.js';
import { isSettingsAction, runSettingsAction, SETTINGS_ACTIONS } from '../agent/settings-action.js';

export const hooksVerb: Verb = {
  name: 'hooks',
  summary: "put tend's hooks in an agent's own settings, take them out, or check",
  usage: `tend hooks install|uninstall|status [claude|codex|gemini...] [--print] [--json]

For an agent you start yourself in a tend terminal: tend's hooks in the
agent's user settings tell tend what the agent does (\`tend agent\` starts one
with tend's hooks for that run instead, and changes no file).

  install AGENT      adds tend's handler for each of the agent's hook events,
                     beside your own entries, which stay as they are; run
                     again, it changes nothing; a handler of another tend (a
                     moved checkout) is pointed at this one
  uninstall AGENT    takes out tend's handlers, and only them: after install
                     then uninstall the file is as it was, byte for byte
  status [AGENT...]  whether they are in, for each agent (all with none named)

The files:
  claude   $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json
  codex    $CODEX_HOME/hooks.json, else ~/.codex/hooks.json; Codex runs a new
           hook only after it is trusted in its /hooks screen (run codex,
           type /hooks)
  gemini   ~/.gemini/settings.json; Gemini CLI runs hooks only with
           "tools": {"enableHooks": true}, which install sets when absent

The file is edited in place, in its own indent and line endings; a file that
is missing is made (mode 0600). Before tend first changes a file it keeps it
as it was in FILE.tend-backup, which later changes never overwrite. tend will
not rewrite a file that is not JSON, or that has comments.

  -p, --print   show the change (lines taken out and put in) and write nothing
  -j, --json    print what changed (or, for status, each agent's state) as
                JSON; docs/agents.md lists its fields`,
  options: { print: { type: 'boolean', short: 'p' }, ...jsonOption },
  operands: 'ACTION [AGENT...]',
  exits: [{ status: EXIT.failed, meaning: 'a settings file could not be read, is not JSON tend will edit, or could not be written; it was left as it was' }],
  async run({ args, stdout, stderr }) {
    const [action = '', ...names] = args.positionals;
    if (!isSettingsAction(action)) throw usageError(`no action "${action}"${didYouMean(action, SETTINGS_ACTIONS)}; hooks takes install, uninstall or status`);
    const hookClientPath = defaultHookClientPath();
    const targetOf = (kind: AgentKind) => ({ kind, hookClientPath, file: agentSettingsFile(kind) });
    return runSettingsAction({ action, names, print: args.values.print === true, json: args.values.json === true, stdout, stderr }, {
      verb: 'tend hooks',
      status: (kind) => hooksStatus(targetOf(kind)),
      change: (change, kind, print) => changeHooks(change, targetOf(kind), print),
      statusText,
      changeText,
    });
  },
};

function didYouMean(word: string, among: readonly string[]): string {
  const close = nearest(word, among);
  return close.length > 0 ? ` (did you mean ${close.join(' or ')}?)` : '';
}

function changeText(r: ChangeResult): string {
  const who = AGENT_FLAVOURS[r.agent].title;
  const lines: string[] = [];
  if (r.diff !== undefined) {
    if (!r.changed) return `nothing to change in ${r.file}: ${r.action === 'install' ? `tend's hooks for ${who} are already there` : `it holds no hooks of tend's`}\n`;
    return `${r.diff}(shown only: nothing was written)\n`;
  }
  if (!r.changed) {
    if (r.action === 'install') lines.push(`tend's hooks for ${who} are already installed in ${r.file}; nothing changed`);
    else lines.push(r.existed ? `no hooks of tend's for ${who} in ${r.file}; nothing changed` : `no file ${r.file}; nothing to take out`);
  } else if (r.action === 'install') {
    lines.push(`${r.created ? 'made' : 'changed'} ${r.file}: tend's hooks for ${who} are installed`);
    if (r.added.length > 0) lines.push(`  added tend's handler for ${r.added.join(', ')}`);
    if (r.replaced.length > 0) lines.push(`  pointed ${r.replaced.join(', ')} at this tend's hook client (they ran ${hookClientsOf(r.staleCommands).join(', ')})`);
    if (r.removed.length > 0) lines.push(`  took out tend's handlers for events it no longer uses: ${r.removed.join(', ')}`);
    if (r.geminiHooks === 'turned-on') lines.push(`  turned on hooks ("tools": {"enableHooks": true}), without which Gemini CLI runs none`);
  } else {
    lines.push(`changed ${r.file}: took out tend's hooks for ${who} (${r.removed.join(', ')})`);
  }
  if (r.changed && r.action === 'uninstall' && r.geminiHooks === 'on') lines.push(`  left "tools": {"enableHooks": true} as it is (your own hooks may need it): set it to false yourself if nothing else does`);
  if (r.backup !== null) lines.push(`  backup of the file before tend's first edit of it: ${r.backup}`);
  return lines.filter((l) => l !== '').map((l) => `${l}\n`).join('');
}

function statusText(r: StatusResult): string {
  const head = `${r.agent}: `;
  if (r.error !== undefined) return `${head}cannot tell: ${r.error}\n`;
  const where = r.exists ? `(${r.file})` : `(no file ${r.file})`;
  const state = r.state === 'installed' ? 'installed' : r.state === 'partly' ? `partly installed, missing ${r.missing!.join(', ')}` : 'not installed';
  return `${head}${state} ${where}\n${r.notes.map((n) => `  ${n}\n`).join('')}`;
}

