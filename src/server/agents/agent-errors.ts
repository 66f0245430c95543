// What the agents' core refuses, in its own words; http/core-errors.ts says
// which API code answers each (no_agent, agent_cannot_sleep,
// agent_wake_failed). Each carries that code as `code` too, so an await that
// fails on one reports it as it is.

export class NoAgentError extends Error {
  readonly code = 'no_agent' as const;
}

/** Sleep asked by hand of an agent that cannot sleep now; the message says why. */
export class AgentCannotSleepError extends Error {
  readonly code = 'agent_cannot_sleep' as const;
}

/** Input that waited for a wake which failed: it was dropped, never typed into the shell. */
export class AgentWakeFailedError extends Error {
  readonly code = 'agent_wake_failed' as const;
}
