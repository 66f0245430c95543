// A stand-in for Claude Code, Codex and Gemini CLI in tests and benches: a
// real process in a real terminal that behaves as those agents do in every
// way tend depends on — hooks read from the agent's own settings files and
// run with its payloads at its moments, an inline prompt, answers after a
// delay, permission questions, interrupts, --session-id / resume, Ctrl-C
// twice to exit, SIGTERM/SIGHUP — without a model or a network.
//
//   node fake-agent.js --flavour claude|codex|gemini [the agent's own args]
//
// Tests put `claude`, `codex` and `gemini` scripts that run it first on PATH
// (install-fake-agents.ts). Tuning, from the environment:
//   FAKE_AGENT_DELAY_MS      how long an answer takes (default 300)
//   FAKE_AGENT_NOTIFY_MS     Claude's permission Notification delay (default 2000)
//   FAKE_AGENT_BALLAST_MB    memory held and touched, for benches of sleeping (default 0)
//   FAKE_CODEX_TRUST_HOOKS=1 Codex's hooks count as trusted in its /hooks screen
//   FAKE_AGENT_TRACE=FILE    appends what it does (keys, hooks, its end) to FILE
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { FAKE_FLAVOURS } from './flavours.js';
import { AgentArgsError, parseFakeAgentArgs } from './fake-agent-args.js';
import { loadHookSettings, SettingsError, type HookSettings } from './hook-settings.js';
import { KeyReader } from './key-reader.js';
import { Conversation } from './conversation.js';
import { findTranscript, newTranscriptPath, readTranscript, type TranscriptMessage } from './transcript.js';

const DEFAULT_ANSWER_DELAY_MS = 300;
const DEFAULT_NOTICE_DELAY_MS = 2000;
const DEFAULT_COLUMNS = 80;
const BYTES_PER_MB = 1024 * 1024;
/** Exit even if the terminal never takes the last bytes (it may be gone: SIGHUP). */
const EXIT_FLUSH_WAIT_MS = 200;
const BRACKETED_PASTE_ON = '\x1b[?2004h';
const BRACKETED_PASTE_OFF = '\x1b[?2004l';
const SIGNAL_STATUS = { SIGTERM: 143, SIGHUP: 129 } as const;

/** Held for the process's life so a bench can measure what ending the agent frees. */
let ballast: Buffer | null = null;

function numberFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}

function refuse(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function main(): void {
  let args;
  try {
    args = parseFakeAgentArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof AgentArgsError) refuse(err.message);
    throw err;
  }
  const flavour = FAKE_FLAVOURS[args.kind];
  const env = process.env;
  const cwd = process.cwd();
  const where = { env, cwd };

  let sessionId: string;
  let transcriptPath: string;
  let resumed: TranscriptMessage[] | null = null;
  if (args.resumeId !== null) {
    const found = findTranscript(args.kind, where, args.resumeId);
    if (found === null) refuse(flavour.look.unknownConversation(args.resumeId));
    sessionId = args.resumeId;
    transcriptPath = found;
    resumed = readTranscript(found);
  } else {
    sessionId = args.sessionId ?? randomUUID();
    if (args.sessionId !== null && findTranscript(args.kind, where, args.sessionId) !== null) {
      refuse(`Error: Session ID ${args.sessionId} is already in use.`);
    }
    transcriptPath = newTranscriptPath(args.kind, where, sessionId);
  }

  let hooks: HookSettings;
  try {
    hooks = loadHookSettings(args.kind, { env, cwd, settingsArg: args.settings });
  } catch (err) {
    if (err instanceof SettingsError) refuse(err.message);
    throw err;
  }

  const ballastMb = numberFromEnv('FAKE_AGENT_BALLAST_MB', 0);
  // A fill value writes every page, so the memory is resident, not just reserved.
  if (ballastMb > 0) ballast = Buffer.alloc(Math.round(ballastMb * BYTES_PER_MB), 0x5a);

  const hookEnv: NodeJS.ProcessEnv = { ...env };
  if (flavour.sessionIdVariable !== null) hookEnv[flavour.sessionIdVariable] = sessionId;
  if (args.kind === 'claude') hookEnv.CLAUDE_PROJECT_DIR = cwd;

  const stdin = process.stdin;
  const stdout = process.stdout;
  // The terminal may vanish under us (SIGHUP): a failed write must not crash the agent.
  stdout.on('error', () => undefined);
  const write = (s: string) => {
    if (stdout.writable) stdout.write(s);
  };
  const rawMode = (on: boolean) => {
    if (!stdin.isTTY) return;
    try {
      stdin.setRawMode(on);
    } catch {
      // The terminal is gone.
    }
  };

  const traceFile = env.FAKE_AGENT_TRACE;
  const trace = (what: string) => {
    if (traceFile) appendFileSync(traceFile, `${new Date().toISOString()} ${process.pid} ${what}\n`);
  };

  let reader: KeyReader | null = null;
  const conversation = new Conversation({
    flavour,
    session: { sessionId, transcriptPath, cwd },
    resumed,
    hooks,
    hookContext: { cwd, env: hookEnv },
    answerDelayMs: numberFromEnv('FAKE_AGENT_DELAY_MS', DEFAULT_ANSWER_DELAY_MS),
    noticeDelayMs: numberFromEnv('FAKE_AGENT_NOTIFY_MS', DEFAULT_NOTICE_DELAY_MS),
    sessionEndBudgetMs: env.CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS ? numberFromEnv('CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS', 0) : null,
    write,
    trace,
    columns: () => stdout.columns || DEFAULT_COLUMNS,
    exit: (status) => {
      reader?.dispose();
      ballast = null;
      write(BRACKETED_PASTE_OFF);
      rawMode(false);
      setTimeout(() => process.exit(status), EXIT_FLUSH_WAIT_MS);
      if (stdout.writable) stdout.write('', () => process.exit(status));
    },
  });

  rawMode(true);
  write(BRACKETED_PASTE_ON);
  reader = new KeyReader((key) => conversation.onKey(key));
  stdin.setEncoding('utf8');
  stdin.on('data', (chunk: string) => reader?.feed(chunk));
  const hangUp = () => void conversation.end(flavour.endReasons.signal, SIGNAL_STATUS.SIGHUP);
  stdin.on('end', hangUp);
  stdin.on('error', hangUp);
  process.on('SIGTERM', () => void conversation.end(flavour.endReasons.signal, SIGNAL_STATUS.SIGTERM));
  process.on('SIGHUP', hangUp);
  // Raw mode turns Ctrl-C into a byte; a SIGINT from elsewhere counts as the same key.
  process.on('SIGINT', () => conversation.onKey({ kind: 'ctrl-c' }));
  void conversation.start();
}

main();
