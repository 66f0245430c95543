// `tend mcp`: the MCP server an agent starts as a command (stdio), and
// `tend mcp install|uninstall|status AGENT`: its entry in an agent's own
// MCP configuration.
import type { Verb } from '../verb.js';
import { jsonOption } from '../verb.js';
import { usageError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { maxCharsFromEnv, serveMcp } from '../mcp/mcp-server.js';

export const mcpVerb: Verb = {
  name: 'mcp',
  summary: 'serve MCP on stdio, so an agent drives terminals through tend; or add that to an agent',
  usage: `tend mcp
tend mcp install|uninstall|status [claude|codex|gemini...] [--print] [--json]

With no action: an MCP server on standard input and output, for an agent
to start as a command (docs/mcp.md lists its tools). It reaches the tend
server as every verb does, starting it when none runs, and rides through
its restarts. Standard output carries the protocol only; tend's own words
go to standard error. It ends when the agent closes its standard input.

Environment:
  TEND_MCP_MAX_CHARS   characters of text per answer unless a call asks
                       for more or less (1000 to 80000; default 20000)

  -p, --print   show the change to the agent's file and write nothing
  -j, --json    print what changed (or each agent's state) as JSON`,
  options: { print: { type: 'boolean', short: 'p' }, ...jsonOption },
  operands: '[ACTION] [AGENT...]',
  async run({ args, client, stderr }) {
    const [action] = args.positionals;
    if (action === undefined) {
      if (args.values.print || args.values.json) throw usageError('--print and --json go with install, uninstall or status; `tend mcp` alone serves MCP on stdio');
      const maxChars = maxCharsFromEnv(process.env);
      if (typeof maxChars === 'string') throw usageError(maxChars);
      await serveMcp({ client, stderr, maxChars });
      // The agent closed its end: calls still waiting have nobody to answer
      // (what they waited for goes on in the server), so end now.
      process.exit(EXIT.ok);
    }
    throw usageError(`no action "${action}"; mcp takes install, uninstall or status, or nothing to serve MCP`);
  },
};
