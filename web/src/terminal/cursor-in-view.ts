// A pane shows its session at the session's size, whatever the pane's (the
// size is the latest typing viewer's, not this page's: docs/architecture.md,
// "Viewers of different sizes"). A session larger than the pane is cropped
// by the pane, which scrolls; this keeps the cursor's cell inside the part
// shown, as tmux keeps it inside a smaller client's window, so the prompt or
// the line being edited is never off the pane's edge. At most once a frame.
import type { IDisposable, Terminal } from '@xterm/xterm';

/** Scrolls `scroller` (the pane's body) so the terminal's cursor cell stays visible. */
export function keepCursorInView(terminal: Terminal, scroller: HTMLElement): IDisposable {
  let frame: number | null = null;
  const follow = () => {
    frame = null;
    const screen = terminal.element?.querySelector<HTMLElement>('.xterm-screen');
    const buffer = terminal.buffer.active;
    // Scrolled back into the history: the cursor is not on the rows shown.
    if (!screen || buffer.viewportY !== buffer.baseY) return;
    const cellWidth = screen.offsetWidth / terminal.cols;
    const cellHeight = screen.offsetHeight / terminal.rows;
    if (!(cellWidth > 0 && cellHeight > 0)) return;
    // The screen's offset inside the scroller (the pane's padding).
    const screenBox = screen.getBoundingClientRect();
    const scrollerBox = scroller.getBoundingClientRect();
    const left = screenBox.left - scrollerBox.left + scroller.scrollLeft;
    const top = screenBox.top - scrollerBox.top + scroller.scrollTop;
    scroller.scrollLeft = within(scroller.scrollLeft, left + buffer.cursorX * cellWidth, cellWidth, scroller.clientWidth);
    scroller.scrollTop = within(scroller.scrollTop, top + buffer.cursorY * cellHeight, cellHeight, scroller.clientHeight);
  };
  const schedule = () => {
    if (frame === null) frame = requestAnimationFrame(follow);
  };
  const moved = terminal.onCursorMove(schedule);
  const resized = terminal.onResize(schedule);
  const observer = new ResizeObserver(schedule);
  observer.observe(scroller);
  return {
    dispose() {
      moved.dispose();
      resized.dispose();
      observer.disconnect();
      if (frame !== null) cancelAnimationFrame(frame);
    },
  };
}

/** The scroll position nearest to `scroll` that shows [start, start + size) in a view of `view`. */
function within(scroll: number, start: number, size: number, view: number): number {
  if (start < scroll) return start;
  if (start + size > scroll + view) return start + size - view;
  return scroll;
}
