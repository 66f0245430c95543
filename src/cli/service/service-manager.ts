// What `tend service` needs of a service manager, whichever it is: whether it
// can be used here, how to make the written file its running job, how to
// undo that, and what it says about the job now. systemd.ts and launchd.ts
// implement it; service-actions.ts drives it.
import type { ServiceKind } from './service-command.js';

export interface JobState {
  /** The manager runs the job now. */
  active: boolean;
  /** The manager's word for its state (active, inactive, failed, running…). */
  state: string;
  /** The job's main process, when it has one. */
  pid: number | null;
}

export interface ServiceManager {
  kind: ServiceKind;
  /** The unit's or job's name (tend.service, tend.server). */
  name: string;
  /** Where its file goes. */
  file: string;
  /** The file's text. */
  render(): string;
  /** Null when the manager can be used; else why not, in one line. */
  unavailable(): Promise<string | null>;
  /** After the file is written: load it and run it (restart it when it already ran an older file). */
  activate(): Promise<void>;
  /** Stop the job and forget it; the file stays for the caller to remove. */
  deactivate(): Promise<void>;
  /** After the file is removed: let the manager forget it too. */
  forget(): Promise<void>;
  /** What the manager says of the job now. */
  state(): Promise<JobState>;
  /** Sentences for the user after an install (lingering under systemd). */
  advice(): Promise<string[]>;
}

export class ServiceManagerError extends Error {}
