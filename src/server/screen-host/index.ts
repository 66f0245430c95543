// Every session's screen, parsed in one worker thread beside the server's loop.
export { ScreenHost, ScreenHostError, type ScreenHostOptions } from './screen-host.js';
export { HostedScreen, HostedCommands } from './hosted-screen.js';
export type { CommandInfo, CommandsState, FinishedCommand, HostStats, RestoreSpec, SearchQuery } from './messages.js';
