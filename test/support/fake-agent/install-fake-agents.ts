// Puts the fake agent on a test's PATH under the real agents' names: `claude`,
// `codex` and `gemini` in a bin directory, each a sh script that runs the fake
// agent with its flavour and passes every argument on. A session started with
// `env` (over the test's own) then runs the fake wherever it runs `claude`.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_KINDS, type AgentKind } from '../../../src/protocol/api/agents.js';
import { shQuote } from '../../../src/common/agents/catalogue.js';

/** The compiled fake agent, beside this file. */
export const FAKE_AGENT_PROGRAM = join(import.meta.dirname, 'fake-agent.js');

export interface FakeAgents {
  binDir: string;
  /** The environment to start sessions with: PATH with binDir first. */
  env: { PATH: string };
  /** The script that runs each flavour. */
  programs: Record<AgentKind, string>;
}

export function installFakeAgents(dir: string, basePath = process.env.PATH ?? '/usr/bin:/bin'): FakeAgents {
  const binDir = join(dir, 'bin');
  mkdirSync(binDir, { recursive: true });
  const programs = {} as Record<AgentKind, string>;
  for (const kind of AGENT_KINDS) {
    const script = join(binDir, kind);
    // This Node, by its absolute path: the session's PATH may hold another or none.
    writeFileSync(script, `#!/bin/sh\nexec ${shQuote(process.execPath)} ${shQuote(FAKE_AGENT_PROGRAM)} --flavour ${kind} "$@"\n`);
    chmodSync(script, 0o755);
    programs[kind] = script;
  }
  return { binDir, env: { PATH: `${binDir}:${basePath}` }, programs };
}
