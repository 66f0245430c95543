// The key row's Ctrl: a phone cannot hold a key while tapping another, so
// Ctrl is tapped first and stays armed for the next key only — one of the
// row's, or the next thing typed on the on-screen keyboard (the pane takes it
// with take()). Tapped again before that, it lets go. One per workspace: the
// focused pane is the one that takes it.
import { Model } from '../model/model.js';

export interface StickyCtrlState {
  armed: boolean;
}

export class StickyCtrl extends Model<StickyCtrlState> {
  constructor() {
    super({ armed: false });
  }

  toggle(): void {
    this.update({ armed: !this.state.armed });
  }

  /** Whether Ctrl applies to the key being sent now; it lets go either way. */
  take(): boolean {
    const armed = this.state.armed;
    if (armed) this.update({ armed: false });
    return armed;
  }
}
