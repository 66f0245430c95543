// The page's one word on the server connection: nothing while connected,
// "reconnecting…" (with the attempt count) while the server is away. The
// screens stay as they were meanwhile; they resume when it is back.
import { useEffect, useState } from 'react';
import type { SocketState, ViewerSocket } from '../connection/viewer-socket.js';

export function ConnectionBanner(props: { socket: ViewerSocket }) {
  const [state, setState] = useState<SocketState>(props.socket.state);
  useEffect(() => props.socket.onState(setState), [props.socket]);
  if (state === 'open') return null;
  const text =
    state === 'connecting'
      ? 'connecting to the tend server…'
      : state === 'reconnecting'
        ? `reconnecting… (attempt ${props.socket.failures + 1})`
        : 'disconnected';
  return (
    <div className={`connection-banner connection-${state}`} role="status" aria-live="polite" data-state={state}>
      <span>{text}</span>
      {state === 'reconnecting' && (
        <button type="button" className="small" onClick={() => props.socket.retryNow()}>
          Retry now
        </button>
      )}
    </div>
  );
}
