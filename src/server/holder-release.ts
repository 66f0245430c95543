// When a session whose program ended may let its holder go. The holder keeps
// the exit status and the ring until the server answers EXIT with KILL
// ("recorded, you may go"). A server that `tend upgrade` is still checking
// (take-over.ts: on trial) records the exit in its store, but that store is
// put back as it was should the check fail, and the server the upgrade goes
// back to would find neither the holder nor the exit: the session would come
// back cold, its last output lost. So until the trial ends, the answers wait
// here; a server that stops meanwhile drops them, leaving each holder for the
// next server, which reattaches, replays and is told EXIT again.
import { DisposableBase, toDisposable } from '../common/lifecycle.js';

export class HolderRelease extends DisposableBase {
  private readonly waiting = new Set<() => void>();
  private onTrial: boolean;

  /** `trialEnded`: the upgrade kept this server (or gave up watching); null: no trial. */
  constructor(trialEnded: Promise<void> | null) {
    super();
    this.onTrial = trialEnded !== null;
    void trialEnded?.then(() => this.endTrial());
    this.register(toDisposable(() => this.waiting.clear()));
  }

  /**
   * Runs `letGo` now, or once the trial is over (never, should the server
   * stop before). The returned function runs it at once if it is still
   * waiting (the session is being removed: nobody needs the holder).
   */
  letGo(letGo: () => void): () => void {
    if (!this.onTrial) {
      letGo();
      return () => {};
    }
    this.waiting.add(letGo);
    return () => {
      if (this.waiting.delete(letGo)) letGo();
    };
  }

  private endTrial(): void {
    if (this.isDisposed || !this.onTrial) return;
    this.onTrial = false;
    const all = [...this.waiting];
    this.waiting.clear();
    for (const letGo of all) letGo();
  }
}

/** For a server no upgrade checks (and for sessions made without one): every holder goes at once. */
export const releaseAtOnce = new HolderRelease(null);
