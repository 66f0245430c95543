// `await`: pending command results with ids and locations (await-registry.ts),
// and how a command is typed into a shell for it (command-typing.ts).
export {
  AwaitRegistry,
  AwaitEntry,
  TooManyAwaitsError,
  AWAIT_RESULT_KEEP_MS,
  AWAIT_PENDING_MAX_MS,
  MAX_AWAITS,
  type AwaitOutcome,
  type AwaitResult,
  type AwaitSession,
  type AwaitedCommand,
  type AwaitRegistryOptions,
} from './await-registry.js';
export { typeCommand, needsStaging, ENTER_GAP_MS, MAX_TYPED_INPUT_BYTES, type TypedCommand } from './command-typing.js';
