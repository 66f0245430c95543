// `tend mcp`: the MCP server an agent starts as a command (stdio), and
// `tend mcp install|uninstall|status AGENT`: its entry in an agent's own
// MCP configuration.
import type { Verb } from '../verb.js';
import { jsonOption } from '../verb.js';
import { usageError } from '../cli-error.js';
import { EXIT } from '../exit-codes.js';
import { runMcpInstall } from '../mcp-install/mcp-install-command.js';
import { isSettingsAction } from '../agent/settings-action.js';

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

Adding it to an agent (needs no tend server; edits only the agent's file):
  install AGENT      writes the entry "tend" among the agent's MCP servers:
                     this Node running this checkout's bin/tend.js mcp, and
                     TEND_HOME / TEND_RUNTIME_DIR when they are set, so the
                     agent reaches this tend; run again, it changes nothing;
                     an entry of another checkout or Node is pointed here.
                     tend sets its own fields of the entry and keeps the
                     others (Codex's tool approvals, Gemini's trust, more
                     variables in env)
  uninstall AGENT    takes out that entry and only it: after install then
                     uninstall the file is as it was, byte for byte
  status [AGENT...]  installed, not installed, or stale (tend's fields say
                     otherwise: another checkout, Node or TEND_HOME), for
                     each agent (all with none named)

The files (the agents' user scope):
  claude   $CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json ("mcpServers");
           quit a running Claude Code first: it may write its copy back
  codex    $CODEX_HOME/config.toml, else ~/.codex/config.toml
           ([mcp_servers.tend]), with tool_timeout_sec = 3600: Codex stops
           waiting for a tool after 60 s unless told, and run waits longer
  gemini   ~/.gemini/settings.json ("mcpServers"), with timeout 3600000 (ms)

The file is edited in place, everything else in it kept; before tend first
changes a file it keeps it as it was in FILE.tend-backup. A file that is
not valid JSON or TOML, or names tend's server in a form tend will not edit,
is left as it is, with one line saying why.

  -p, --print   show the change to the agent's file and write nothing
  -j, --json    print what changed (or each agent's state) as JSON`,
  options: { print: { type: 'boolean', short: 'p' }, ...jsonOption },
  operands: '[ACTION] [AGENT...]',
  exits: [{ status: EXIT.failed, meaning: "install, uninstall, status: an agent's file could not be read, edited or written (the message says why); it was left as it was" }],
  async run({ args, client, stdout, stderr }) {
    const [action, ...names] = args.positionals;
    if (action === undefined) {
      if (args.values.print || args.values.json) throw usageError('--print and --json go with install, uninstall or status; `tend mcp` alone serves MCP on stdio');
      // Loaded here, not at the top: the MCP SDK and zod take longer to load
      // than the rest of the CLI, and every other verb would pay for them.
      const { maxCharsFromEnv, serveMcp } = await import('../mcp/mcp-server.js');
      const maxChars = maxCharsFromEnv(process.env);
      if (typeof maxChars === 'string') throw usageError(maxChars);
      await serveMcp({ client, stderr, maxChars });
      // The agent closed its end: calls still waiting have nobody to answer
      // (what they waited for goes on in the server), so end now.
      process.exit(EXIT.ok);
    }
    if (isSettingsAction(action)) {
      return runMcpInstall({ action, names, print: args.values.print === true, json: args.values.json === true, stdout, stderr });
    }
    throw usageError(`no action "${action}"; mcp takes install, uninstall or status, or nothing to serve MCP`);
  },
};
