// What a session says about itself while its screen cannot be saved. The
// checkpoint writer stops on a full or read-only disk (one warning in the
// log); the session keeps running, and its info carries this warning for as
// long as that lasts, so `tend ls` and scripts see it without reading a log.
import type { CheckpointStatus } from './checkpoint/index.js';

export function checkpointWarning(writer: { readonly status: CheckpointStatus; readonly dir: string }): { warning: string } | Record<string, never> {
  const status = writer.status;
  if (status.state === 'enabled') return {};
  return {
    warning: `checkpoints stopped: ${status.reason} (${status.code}) at ${writer.dir}; the session keeps running, ` +
      `but a server restart must replay it from its holder's ring, and what the ring no longer holds is lost`,
  };
}
