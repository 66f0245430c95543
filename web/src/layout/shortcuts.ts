// The workspace's keys. All are Ctrl+Shift (+Alt for resizing): a terminal
// program never sees Ctrl+Shift as anything but Ctrl, so taking these costs a
// shell nothing, and they work the same whether focus is in a terminal or on
// the page around it.
import type { SplitDirection } from '../../../src/protocol/api/index.js';
import type { FocusMove } from './layout-tree.js';

export type PaneCommand =
  | { kind: 'focus'; move: FocusMove }
  | { kind: 'grow'; move: FocusMove }
  | { kind: 'split'; direction: SplitDirection }
  | { kind: 'close' }
  | { kind: 'zoom' }
  | { kind: 'search' }
  | { kind: 'history' }
  | { kind: 'copy' }
  | { kind: 'paste' }
  | { kind: 'home' }
  | { kind: 'help' };

const ARROWS: Record<string, FocusMove> = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down' };

/** The command a key press means, or null for keys that belong to the terminal. */
export function commandForKey(ev: KeyboardEvent): PaneCommand | null {
  if (!ev.ctrlKey || !ev.shiftKey || ev.metaKey) return null;
  const arrow = ARROWS[ev.key];
  if (arrow) return ev.altKey ? { kind: 'grow', move: arrow } : { kind: 'focus', move: arrow };
  if (ev.altKey) return null;
  switch (ev.code) {
    case 'KeyD':
      return { kind: 'split', direction: 'right' };
    case 'KeyE':
      return { kind: 'split', direction: 'down' };
    case 'KeyW':
      return { kind: 'close' };
    case 'KeyZ':
    case 'Enter':
      return { kind: 'zoom' };
    case 'KeyF':
      return { kind: 'search' };
    case 'KeyL':
      return { kind: 'history' };
    case 'KeyC':
      return { kind: 'copy' };
    case 'KeyV':
      return { kind: 'paste' };
    case 'KeyH':
      return { kind: 'home' };
    case 'Slash':
      return { kind: 'help' };
    default:
      return null;
  }
}

/** For the help dialog: what each key does. */
export const SHORTCUT_HELP: ReadonlyArray<[string, string]> = [
  ['Ctrl+Shift+←↑↓→', 'move focus to the pane in that direction'],
  ['Ctrl+Shift+Alt+←↑↓→', 'move the divider: grow the focused pane that way'],
  ['Ctrl+Shift+D', 'split the focused pane side by side (new shell)'],
  ['Ctrl+Shift+E', 'split the focused pane top and bottom (new shell)'],
  ['Ctrl+Shift+Z / Ctrl+Shift+Enter', 'maximise the focused pane, or restore it'],
  ['Ctrl+Shift+W', 'close the pane (the session keeps running)'],
  ['Ctrl+Shift+F', 'search the scrollback (in the history view: the rows it has loaded)'],
  ['Ctrl+Shift+L', "the pane's older history from the server (or scroll to its very top); Escape closes it"],
  ['Ctrl+Shift+C / Ctrl+Shift+V', 'copy the selection / paste (bracketed when the program asks)'],
  ['Ctrl+Shift+H', 'back to the dashboard'],
  ['Ctrl+Shift+/', 'this help'],
];
