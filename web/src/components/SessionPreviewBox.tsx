// A card's live picture of its session's screen (terminal/session-preview.ts
// does the work; this gives it a box). Not a place to type or focus: a click
// on it is the card's.
import { useEffect, useRef, useState } from 'react';
import type { ViewerSocket } from '../connection/viewer-socket.js';
import { SessionPreview } from '../terminal/session-preview.js';
import type { AgentStore } from '../agents/agent-store.js';
import { agentInStateFrame } from '../agents/agent-from-frame.js';

export function SessionPreviewBox(props: { socket: ViewerSocket; sessionId: string; agents: AgentStore }) {
  const box = useRef<HTMLDivElement>(null);
  const [preview] = useState(
    () =>
      new SessionPreview({
        socket: props.socket,
        sessionId: props.sessionId,
        onState: (state) => {
          const agent = agentInStateFrame(state);
          if (agent !== undefined) props.agents.fromFrame(props.sessionId, agent);
        },
      }),
  );
  useEffect(() => preview.attach(box.current!), [preview]);
  return <div className="preview-box" ref={box} inert aria-hidden="true" />;
}
