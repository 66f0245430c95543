// What a change in a session's agent asks of a person: it wants permission
// for a tool, or it finished a turn (answered or failed). Pure: the page's
// notifier (agent-notifier.ts) decides whether and how to show them.
//
// A change is judged by what it says, not by which states were seen on the
// way: the page learns of an agent from polls (every few seconds) as well as
// from the viewer socket's STATE frames, so a whole turn may happen between
// two looks. A turn is known by its id, a stay in needs-permission by when it
// began, so each raises its alert once however often it is seen again.
import { agentWantsPerson, type AgentInfo, type AgentTurn } from '../../../src/protocol/api/index.js';

export type AgentAlert =
  | { kind: 'permission'; asking: string | null }
  | { kind: 'answered'; turnId: string; answer: string | null }
  | { kind: 'failed'; turnId: string; error: string | null };

/** A notification's body is one short line: the OS cuts longer ones anyway. */
export const ALERT_BODY_MAX_CHARS = 200;

/** The alerts raised by going from `before` (null: no agent known) to `after`. */
export function alertsFor(before: AgentInfo | null, after: AgentInfo | null): AgentAlert[] {
  if (after === null) return [];
  const alerts: AgentAlert[] = [];
  const turn = endedTurn(after.lastTurn);
  if (turn !== null && endedTurn(before?.lastTurn ?? null)?.id !== turn.id) {
    alerts.push(turn.outcome === 'failed' ? { kind: 'failed', turnId: turn.id, error: turn.error } : { kind: 'answered', turnId: turn.id, answer: turn.answer });
  }
  // Listed after the turn: a person who reads both reads what is wanted now last.
  const stillAsking = before !== null && agentWantsPerson(before.state) && before.since === after.since;
  if (agentWantsPerson(after.state) && !stillAsking) alerts.push({ kind: 'permission', asking: after.asking });
  return alerts;
}

/** A turn that ended with an answer or an error; an interrupted one was stopped by the person, who knows. */
function endedTurn(turn: AgentTurn | null): AgentTurn | null {
  return turn !== null && turn.endedAt !== null && (turn.outcome === 'answered' || turn.outcome === 'failed') ? turn : null;
}

/**
 * Whether `after` is news over `before`: a poll answered after a STATE frame
 * may carry an older state, which must not undo the newer one (nor raise its
 * alerts a second time when the newer comes back). `since` is when a state
 * began, on the server's clock.
 */
export function isNewerAgent(before: AgentInfo | null, after: AgentInfo | null): boolean {
  if (before === null || after === null) return true;
  return after.since >= before.since;
}

/** An alert in words: the notification's body. */
export function alertBody(alert: AgentAlert): string {
  switch (alert.kind) {
    case 'permission': {
      const asking = firstLine(alert.asking);
      return asking === null ? 'needs permission' : `needs permission: ${asking}`;
    }
    case 'answered':
      return firstLine(alert.answer) ?? 'finished its turn';
    case 'failed':
      return `failed: ${firstLine(alert.error) ?? 'no reason given'}`;
  }
}

/** The first line with text in it, cut to ALERT_BODY_MAX_CHARS; null for none. */
export function firstLine(text: string | null, maxChars = ALERT_BODY_MAX_CHARS): string | null {
  if (text === null) return null;
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (line === undefined) return null;
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
}
