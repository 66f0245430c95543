// Draws a layout tree as absolutely placed panes and dividers. Panes are a
// flat list keyed by session, so a split or a close moves a terminal without
// remounting it (a remount would mean a new xterm and a fresh snapshot).
// Dividers drag with the mouse and move with the arrow keys when focused.
import { useRef, type ReactNode } from 'react';
import { MAX_SPLIT_RATIO, MIN_SPLIT_RATIO, type LayoutNode } from '../../../src/protocol/api/index.js';
import { rects, clampRatio, dividers, type Divider, type NodePath } from '../layout/layout-tree.js';

/** A keyboard nudge of a focused divider, as a share of its split. */
const KEYBOARD_STEP_RATIO = 0.02;

const pct = (v: number) => `${(v * 100).toFixed(4)}%`;

export interface SplitLayoutProps {
  layout: LayoutNode;
  /** A maximised pane fills the area; the others stay mounted, hidden. */
  zoomed: string | null;
  renderPane(session: string, visible: boolean): ReactNode;
  /** While dragging (final: false) and once at the end (final: true). */
  onRatio(path: NodePath, ratio: number, final: boolean): void;
}

export function SplitLayout(props: SplitLayoutProps) {
  const area = useRef<HTMLDivElement>(null);
  const placed = rects(props.layout);
  const zoomed = props.zoomed !== null && placed.has(props.zoomed) ? props.zoomed : null;

  const startDrag = (d: Divider, ev: React.PointerEvent<HTMLDivElement>) => {
    const box = area.current?.getBoundingClientRect();
    if (!box) return;
    ev.preventDefault();
    const target = ev.currentTarget;
    target.setPointerCapture(ev.pointerId);
    const ratioAt = (e: PointerEvent) =>
      d.direction === 'right'
        ? clampRatio((e.clientX - box.left - d.rect.x * box.width) / (d.rect.w * box.width))
        : clampRatio((e.clientY - box.top - d.rect.y * box.height) / (d.rect.h * box.height));
    let last = d.ratio;
    const move = (e: PointerEvent) => {
      last = ratioAt(e);
      props.onRatio(d.path, last, false);
    };
    const up = (e: PointerEvent) => {
      target.removeEventListener('pointermove', move);
      target.removeEventListener('pointerup', up);
      target.removeEventListener('pointercancel', up);
      if (e.type === 'pointerup') last = ratioAt(e);
      props.onRatio(d.path, last, true);
    };
    target.addEventListener('pointermove', move);
    target.addEventListener('pointerup', up);
    target.addEventListener('pointercancel', up);
  };

  const nudge = (d: Divider, ev: React.KeyboardEvent<HTMLDivElement>) => {
    const back = d.direction === 'right' ? 'ArrowLeft' : 'ArrowUp';
    const forward = d.direction === 'right' ? 'ArrowRight' : 'ArrowDown';
    if (ev.key !== back && ev.key !== forward) return;
    ev.preventDefault();
    props.onRatio(d.path, clampRatio(d.ratio + (ev.key === forward ? KEYBOARD_STEP_RATIO : -KEYBOARD_STEP_RATIO)), true);
  };

  return (
    <div className="split-area" ref={area}>
      {[...placed].map(([session, r]) => {
        const visible = zoomed === null || zoomed === session;
        const box = zoomed === session ? { x: 0, y: 0, w: 1, h: 1 } : r;
        return (
          <div
            key={session}
            className="pane-slot"
            style={{ left: pct(box.x), top: pct(box.y), width: pct(box.w), height: pct(box.h), display: visible ? undefined : 'none' }}
          >
            {props.renderPane(session, visible)}
          </div>
        );
      })}
      {zoomed === null &&
        dividers(props.layout).map((d) => {
          // 'right': the panes sit side by side, so the divider is an upright bar.
          const sideBySide = d.direction === 'right';
          const style = sideBySide
            ? { left: pct(d.rect.x + d.rect.w * d.ratio), top: pct(d.rect.y), height: pct(d.rect.h) }
            : { top: pct(d.rect.y + d.rect.h * d.ratio), left: pct(d.rect.x), width: pct(d.rect.w) };
          return (
            <div
              key={`divider-${d.path}`}
              className={`divider divider-${d.direction}`}
              style={style}
              role="separator"
              tabIndex={0}
              aria-orientation={sideBySide ? 'vertical' : 'horizontal'}
              aria-valuenow={Math.round(d.ratio * 100)}
              aria-valuemin={Math.round(MIN_SPLIT_RATIO * 100)}
              aria-valuemax={Math.round(MAX_SPLIT_RATIO * 100)}
              aria-label="pane divider: drag, or use the arrow keys"
              data-path={d.path}
              onPointerDown={(ev) => startDrag(d, ev)}
              onKeyDown={(ev) => nudge(d, ev)}
            />
          );
        })}
    </div>
  );
}
