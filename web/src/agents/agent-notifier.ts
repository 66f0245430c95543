// Browser notifications for agents: one when an agent asks for permission,
// one when it finishes a turn (its answer's first line, or its error). Off
// until the person turns them on with the header's bell (the browser asks for
// permission only on such a gesture), remembered in localStorage. Nothing is
// shown for the session the person is looking at: the focused pane of a page
// that is visible and has the focus.
import { Model } from '../model/model.js';
import type { Startable } from '../model/use-owned-model.js';
import { alertBody } from './agent-alerts.js';
import type { AgentStore, RaisedAlert } from './agent-store.js';

const STORAGE_KEY = 'tend.notifications';

/** unsupported: no Notification API here (it needs https or localhost). */
export type NotificationAccess = NotificationPermission | 'unsupported';

export interface NotifierState {
  access: NotificationAccess;
  /** The person turned them on (and the browser allows them). */
  enabled: boolean;
}

export interface AgentNotifierOptions {
  agents: AgentStore;
  /** Brings the session forward (its notification was clicked). */
  show(sessionId: string): void;
}

function currentAccess(): NotificationAccess {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

export class AgentNotifier extends Model<NotifierState> implements Startable {
  /** The last notification shown per session: a newer one for it replaces it in the tray. */
  private readonly shown = new Map<string, Notification>();

  constructor(private readonly options: AgentNotifierOptions) {
    const access = currentAccess();
    super({ access, enabled: access === 'granted' && localStorage.getItem(STORAGE_KEY) === 'on' });
  }

  start(): () => void {
    const stop = this.options.agents.onAlert((alert) => this.alert(alert));
    return () => {
      stop();
      for (const n of this.shown.values()) n.close();
      this.shown.clear();
    };
  }

  /** The bell: on (asking the browser first, if it has not been asked) or off. Call it from a click. */
  async toggle(): Promise<void> {
    if (this.state.enabled) {
      localStorage.setItem(STORAGE_KEY, 'off');
      this.update({ enabled: false });
      return;
    }
    if (currentAccess() === 'unsupported') return;
    let access = Notification.permission;
    if (access === 'default') access = await Notification.requestPermission();
    const enabled = access === 'granted';
    if (enabled) localStorage.setItem(STORAGE_KEY, 'on');
    this.update({ access, enabled });
  }

  private alert(raised: RaisedAlert): void {
    if (!this.state.enabled || currentAccess() !== 'granted') return;
    const looking = !document.hidden && document.hasFocus() && this.options.agents.state.focused === raised.sessionId;
    if (looking) return;
    this.shown.get(raised.sessionId)?.close();
    let notification: Notification;
    try {
      notification = new Notification(raised.label, { body: alertBody(raised.alert) });
    } catch {
      // Chrome on Android allows notifications only from a service worker: there is nothing to show.
      return;
    }
    this.shown.set(raised.sessionId, notification);
    notification.onclick = () => {
      window.focus();
      this.options.show(raised.sessionId);
      notification.close();
    };
    notification.onclose = () => {
      if (this.shown.get(raised.sessionId) === notification) this.shown.delete(raised.sessionId);
    };
  }
}
