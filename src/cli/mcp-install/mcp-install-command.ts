// `tend mcp install|uninstall|status [AGENT...]`: tend's entry in an agent's
// own MCP configuration, so the agent starts `tend mcp` itself. Needs no
// tend server and starts none: it only edits (or reads) the agent's file.
// verbs/mcp.ts hands the words here; this says the result.
import { AGENT_FLAVOURS } from '../../common/agents/catalogue.js';
import type { AgentKind } from '../../protocol/api/agents.js';
import { runSettingsAction, type SettingsRequest } from '../agent/settings-action.js';
import { changeMcpEntry, mcpEntryStatus, type McpChangeAction, type McpChangeResult, type McpStatusResult } from './mcp-install-actions.js';
import { agentMcpConfigFile } from './mcp-config-location.js';
import { entryCommandLine, tendEntry, tendLaunch } from './tend-mcp-entry.js';

export function runMcpInstall(request: SettingsRequest): number {
  const targetOf = (kind: AgentKind) => ({ kind, file: agentMcpConfigFile(kind), wanted: tendEntry(kind, tendLaunch(kind)) });
  return runSettingsAction(request, {
    verb: 'tend mcp',
    status: (kind) => mcpEntryStatus(targetOf(kind)),
    change: (action, kind, print) => changeMcpEntry(action, targetOf(kind), print),
    statusText,
    changeText,
  });
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
