// The fake agent's conversation file: where each agent keeps its own, one
// JSON line per message, written from the first message on (a session that
// never got a prompt leaves no file, so it cannot be resumed). Its line format
// is not a contract, as the real agents warn of theirs; only the place is
// theirs:
// * Claude Code: <config dir>/projects/<cwd with non-alphanumerics as "-">/<id>.jsonl
// * Codex: <codex home>/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl
// * Gemini CLI: ~/.gemini/tmp/<project>/chats/session-<id>.jsonl
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AgentKind } from '../../../src/protocol/api/agents.js';

export interface TranscriptMessage {
  role: 'user' | 'assistant';
  text: string;
}

interface Where {
  env: NodeJS.ProcessEnv;
  cwd: string;
}

function home(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

function projectName(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

function claudeProjects(env: NodeJS.ProcessEnv): string {
  return join(env.CLAUDE_CONFIG_DIR || join(home(env), '.claude'), 'projects');
}

function codexSessions(env: NodeJS.ProcessEnv): string {
  return join(env.CODEX_HOME || join(home(env), '.codex'), 'sessions');
}

function geminiProjects(env: NodeJS.ProcessEnv): string {
  return join(home(env), '.gemini', 'tmp');
}

/** Where a new conversation `id` started now is written. */
export function newTranscriptPath(kind: AgentKind, where: Where, id: string, now = new Date()): string {
  switch (kind) {
    case 'claude':
      return join(claudeProjects(where.env), projectName(where.cwd), `${id}.jsonl`);
    case 'codex': {
      const iso = now.toISOString();
      const [y, m, d] = [iso.slice(0, 4), iso.slice(5, 7), iso.slice(8, 10)];
      return join(codexSessions(where.env), y, m, d, `rollout-${iso.slice(0, 19).replace(/:/g, '-')}-${id}.jsonl`);
    }
    case 'gemini':
      return join(geminiProjects(where.env), projectName(where.cwd), 'chats', `session-${id}.jsonl`);
  }
}

/** The file of an earlier conversation `id`: this project's first, then any (Claude searches every project too). */
export function findTranscript(kind: AgentKind, where: Where, id: string): string | null {
  const here = newTranscriptPath(kind, where, id);
  if (kind !== 'codex' && existsSync(here)) return here;
  switch (kind) {
    case 'claude':
      return firstExisting(subdirs(claudeProjects(where.env)).map((dir) => join(dir, `${id}.jsonl`)));
    case 'gemini':
      return firstExisting(subdirs(geminiProjects(where.env)).map((dir) => join(dir, 'chats', `session-${id}.jsonl`)));
    case 'codex':
      return findFile(codexSessions(where.env), (name) => name.startsWith('rollout-') && name.endsWith(`-${id}.jsonl`), 4);
  }
}

export function readTranscript(file: string): TranscriptMessage[] {
  const messages: TranscriptMessage[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const entry = JSON.parse(line) as { type?: string; message?: { content?: Array<{ text?: string }> } };
      const text = entry.message?.content?.map((c) => c.text ?? '').join('') ?? '';
      if (entry.type === 'user' || entry.type === 'assistant') messages.push({ role: entry.type, text });
    } catch {
      // A torn last line (the agent was killed mid-write) is skipped, not fatal.
    }
  }
  return messages;
}

export function appendToTranscript(file: string, entry: { sessionId: string; cwd: string; message: TranscriptMessage }): void {
  mkdirSync(dirname(file), { recursive: true });
  const line = {
    type: entry.message.role,
    sessionId: entry.sessionId,
    cwd: entry.cwd,
    timestamp: new Date().toISOString(),
    message: { role: entry.message.role, content: [{ type: 'text', text: entry.message.text }] },
  };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

function subdirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(dir, d.name));
  } catch {
    return [];
  }
}

function firstExisting(files: string[]): string | null {
  return files.find((f) => existsSync(f)) ?? null;
}

function findFile(dir: string, wanted: (name: string) => boolean, depth: number): string | null {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (wanted(name) && statSync(path).isFile()) return path;
    if (depth > 0 && statSync(path).isDirectory()) {
      const found = findFile(path, wanted, depth - 1);
      if (found !== null) return found;
    }
  }
  return null;
}
