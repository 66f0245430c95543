// `tend mcp install|uninstall|status [AGENT...]`: tend's entry in an agent's
// own MCP configuration, so the agent starts `tend mcp` itself. Needs no
// tend server and starts none: it only edits (or reads) the agent's file.
// verbs/mcp.ts hands the words here; this says the result.
import { printJson } from '../verb.js';
import { usageError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { nearest } from '../../common/nearest.js';
import { AGENT_FLAVOURS } from '../../common/agents/catalogue.js';
import { AGENT_KINDS, isAgentKind, type AgentKind } from '../../protocol/api/agents.js';
import { changeMcpEntry, mcpEntryStatus, type McpChangeAction, type McpChangeResult, type McpStatusResult } from './mcp-install-actions.js';
import { agentMcpConfigFile } from './mcp-config-location.js';
import { entryCommandLine, tendEntry, tendLaunch } from './tend-mcp-entry.js';

export const MCP_INSTALL_ACTIONS = ['install', 'uninstall', 'status'] as const;
export type McpInstallAction = (typeof MCP_INSTALL_ACTIONS)[number];

export function isMcpInstallAction(word: string): word is McpInstallAction {
  return (MCP_INSTALL_ACTIONS as readonly string[]).includes(word);
}

export interface McpInstallRequest {
  action: McpInstallAction;
  names: string[];
  print: boolean;
  json: boolean;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

export function runMcpInstall(request: McpInstallRequest): number {
  const { action, print, json, stdout, stderr } = request;
  const kinds = request.names.map(agentKind);
  const targetOf = (kind: AgentKind) => ({ kind, file: agentMcpConfigFile(kind), wanted: tendEntry(kind, tendLaunch(kind)) });

  if (action === 'status') {
    if (print) throw usageError('--print shows what install or uninstall would change; status changes nothing');
    const results = (kinds.length > 0 ? kinds : [...AGENT_KINDS]).map((kind) => mcpEntryStatus(targetOf(kind)));
    if (json) printJson(stdout, results);
    else stdout.write(results.map(statusText).join(''));
    return results.some((r) => r.error !== undefined) ? EXIT.failed : EXIT.ok;
  }
  if (kinds.length !== 1) throw usageError(`${action} takes one agent: claude, codex or gemini (given ${kinds.length})`, { usage: `tend mcp ${action} claude|codex|gemini [--print] [--json]` });
  const result = changeMcpEntry(action, targetOf(kinds[0]!), print);
  if (json) {
    printJson(stdout, result);
    return EXIT.ok;
  }
  stdout.write(changeText(result));
  // Beside a printed diff the notes go to stderr, so the diff alone can be kept (> change.diff).
  (print ? stderr : stdout).write(result.notes.map((n) => `note: ${n}\n`).join(''));
  return EXIT.ok;
}

function agentKind(name: string): AgentKind {
  if (isAgentKind(name)) return name;
  const close = nearest(name, AGENT_KINDS);
  throw usageError(`no agent "${name}"${close.length > 0 ? ` (did you mean ${close.join(' or ')}?)` : ''}; tend knows claude, codex and gemini`, { candidates: close });
}

function changeText(r: McpChangeResult): string {
  const who = AGENT_FLAVOURS[r.agent].title;
  const action: McpChangeAction = r.action;
  if (r.diff !== undefined) {
    if (!r.changed) return `nothing to change in ${r.file}: ${action === 'install' ? `tend's MCP server for ${who} is already there` : 'it holds no MCP server of tend\'s'}\n`;
    return `${r.diff}(shown only: nothing was written)\n`;
  }
  const lines: string[] = [];
  if (r.outcome === 'unchanged') lines.push(`tend's MCP server is already installed for ${who} in ${r.file}; nothing changed`);
  else if (r.outcome === 'absent') lines.push(r.existed ? `no MCP server of tend's for ${who} in ${r.file}; nothing changed` : `no file ${r.file}; nothing to take out`);
  else if (r.outcome === 'added') lines.push(`${r.created ? 'made' : 'changed'} ${r.file}: ${who} starts tend's MCP server as ${entryCommandLine(r.entry)}`);
  else if (r.outcome === 'replaced') {
    lines.push(`changed ${r.file}: ${who} starts tend's MCP server as ${entryCommandLine(r.entry)}`);
    lines.push(`  tend's entry there was replaced (it ran ${entryCommandLine(r.previous) ?? 'no command'})`);
  } else lines.push(`changed ${r.file}: took out tend's MCP server for ${who}`);
  if (r.backup !== null && r.written) lines.push(`  backup of the file before tend's first edit of it: ${r.backup}`);
  return lines.map((l) => `${l}\n`).join('');
}

function statusText(r: McpStatusResult): string {
  const head = `${r.agent}: `;
  if (r.error !== undefined) return `${head}cannot tell: ${r.error}\n`;
  const where = r.exists ? `(${r.file})` : `(no file ${r.file})`;
  const state = r.state === 'installed' ? 'installed' : r.state === 'stale' ? 'stale: tend\'s fields there are not what install writes' : 'not installed';
  return `${head}${state} ${where}\n${r.notes.map((n) => `  ${n}\n`).join('')}`;
}
