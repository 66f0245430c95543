// `await`: pending command results with ids and locations (await-registry.ts),
// the rule that binds an await to its command (await-outcome.ts), how awaits
// are kept across restarts (await-store.ts), and how a command is typed into
// a shell for it (command-typing.ts).
export {
  AwaitRegistry,
  AwaitEntry,
  TooManyAwaitsError,
  AWAIT_RESULT_KEEP_MS,
  AWAIT_PENDING_MAX_MS,
  AWAIT_ID_PATTERN,
  AGENT_TURN,
  MAX_AWAITS,
  type AwaitSession,
  type AwaitRegistryOptions,
  type FindAwaitSession,
} from './await-registry.js';
export {
  INPUT_NOT_RUN,
  quoteLine,
  type AwaitOutcome,
  type AwaitResult,
  type AwaitedCommand,
  type SettledOutcome,
} from './await-outcome.js';
export { openAwaitStore, type AwaitStore, type StoredAwait } from './await-store.js';
export { typeCommand, needsStaging, ENTER_GAP_MS, MAX_TYPED_INPUT_BYTES, type TypedCommand } from './command-typing.js';
export { foregroundIntruder } from './foreground.js';
export { TypingTurns } from './typing-turns.js';
