// A session's status in words and colour.
import type { SessionInfo } from '../api/sessions.js';
import { describeExitShort } from '../../../src/protocol/exit-status.js';

function statusWords(s: SessionInfo): string {
  switch (s.status) {
    case 'running':
      return 'running';
    case 'exited':
      // A signal death says which signal ("killed (SIGKILL)"), never the holder's code −1.
      return s.exitSignal ? describeExitShort({ code: null, signal: s.exitSignal }) : `exited ${s.exitCode ?? '?'}`;
    case 'cold':
      return 'cold';
    case 'elsewhere':
      return 'elsewhere';
    default:
      return String(s.status);
  }
}

export function StatusBadge(props: { session: SessionInfo }) {
  const s = props.session;
  const failed = s.status === 'exited' && s.exitCode !== 0;
  return (
    <span className="status">
      <span className={`badge badge-${s.status}${failed ? ' badge-failed' : ''}`}>{statusWords(s)}</span>
      {s.degraded && (
        <span className="badge badge-degraded" title="output was lost: it left the holder's ring before the server read it, or a damaged history file lost rows">
          incomplete
        </span>
      )}
    </span>
  );
}
