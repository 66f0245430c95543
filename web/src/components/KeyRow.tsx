// The row of keys a phone's on-screen keyboard lacks (terminal/phone-keys.ts),
// drawn at the bottom of a workspace on touch and narrow screens: the page
// fits the visible part of the screen (layout/visible-viewport.ts), so the
// row sits just above the keyboard. A tap goes to the focused pane.
//
// A button takes no focus: pressing one must leave the terminal's hidden
// textarea focused, or the on-screen keyboard would close at every key.
import type { PointerEvent as ReactPointerEvent, MouseEvent as ReactMouseEvent } from 'react';
import { PHONE_KEYS, type PhoneKey } from '../terminal/phone-keys.js';
import type { StickyCtrl } from '../workspace/sticky-ctrl.js';
import { useModel } from '../model/use-model.js';

export interface KeyRowProps {
  ctrl: StickyCtrl;
  /** No pane to send to: the keys are shown, but disabled. */
  disabled: boolean;
  onKey(key: PhoneKey): void;
}

/** Keeps the focus where it is (the terminal), so the on-screen keyboard stays open. */
const keepFocus = (ev: ReactPointerEvent | ReactMouseEvent) => ev.preventDefault();

export function KeyRow(props: KeyRowProps) {
  const { armed } = useModel(props.ctrl);
  return (
    <div className="key-row" role="toolbar" aria-label="keys the on-screen keyboard lacks">
      <button
        type="button"
        className={`key${armed ? ' key-armed' : ''}`}
        aria-label="Control: held for the next key"
        aria-pressed={armed}
        disabled={props.disabled}
        tabIndex={-1}
        onPointerDown={keepFocus}
        onMouseDown={keepFocus}
        onClick={() => props.ctrl.toggle()}
      >
        Ctrl
      </button>
      {PHONE_KEYS.map((k) => (
        <button
          key={k.key}
          type="button"
          className="key"
          aria-label={k.name}
          data-key={k.key}
          disabled={props.disabled}
          tabIndex={-1}
          onPointerDown={keepFocus}
          onMouseDown={keepFocus}
          onClick={() => props.onKey(k.key)}
        >
          {k.label}
        </button>
      ))}
    </div>
  );
}
