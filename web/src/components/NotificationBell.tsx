// The header's bell: turns agent notifications on or off. The browser is
// asked for permission only here, on the person's click.
import type { AgentNotifier } from '../agents/agent-notifier.js';
import { useModel } from '../model/use-model.js';

export function NotificationBell(props: { notifier: AgentNotifier }) {
  const { access, enabled } = useModel(props.notifier);
  const why =
    access === 'unsupported'
      ? 'this browser offers no notifications here (they need https, or localhost)'
      : access === 'denied'
        ? "notifications are blocked for this page: allow them in the browser's site settings"
        : enabled
          ? 'notified when an agent needs permission or finishes a turn; click to stop'
          : 'notify me when an agent needs permission or finishes a turn';
  return (
    <button
      type="button"
      className={`small ghost bell${enabled ? ' bell-on' : ''}`}
      aria-pressed={enabled}
      aria-label={`agent notifications: ${enabled ? 'on' : 'off'}`}
      title={why}
      disabled={access === 'unsupported' || access === 'denied'}
      onClick={() => void props.notifier.toggle()}
    >
      <BellIcon crossed={!enabled} /> Notify: {enabled ? 'on' : 'off'}
    </button>
  );
}

/** Drawn, not an emoji: a system without an emoji font would show an empty box. */
function BellIcon(props: { crossed: boolean }) {
  return (
    <svg className="bell-icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round">
      <path d="M4 11V7a4 4 0 0 1 8 0v4l1.5 1.5h-11z" />
      <path d="M6.5 14a1.5 1.5 0 0 0 3 0" />
      {props.crossed && <path d="M2 2l12 12" />}
    </svg>
  );
}
