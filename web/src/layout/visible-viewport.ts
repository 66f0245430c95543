// The part of the page a person can see, for the layout to fit into when an
// on-screen keyboard opens. Android's Chrome shrinks the layout viewport
// itself (index.html asks for interactive-widget=resizes-content), but iOS's
// Safari and older Chromes shrink only the visual viewport and leave the page
// as tall as before, the keyboard over its bottom: the key row and the
// terminal's last rows, the ones being typed into. So the visual viewport's
// height is kept in --visible-height, which styles.css gives the app on
// touch and narrow screens (a desktop's layout does not use it).
//
// A pinch zoom shrinks the visual viewport too, but that is the person
// looking closer, not less room: while zoomed the height is left alone.

/** Scales this close to 1 count as not zoomed (rounding in the browser's numbers). */
const UNZOOMED_SCALE_TOLERANCE = 0.01;

/** Keeps --visible-height on `root` up to date; returns what stops it. */
export function followVisibleViewport(root: HTMLElement = document.documentElement): () => void {
  const viewport = window.visualViewport;
  if (!viewport) return () => undefined;
  const update = () => {
    if (Math.abs(viewport.scale - 1) > UNZOOMED_SCALE_TOLERANCE) return;
    root.style.setProperty('--visible-height', `${Math.round(viewport.height)}px`);
  };
  update();
  viewport.addEventListener('resize', update);
  return () => {
    viewport.removeEventListener('resize', update);
    root.style.removeProperty('--visible-height');
  };
}
