// What kind of screen the page is on, as media queries a component can follow
// (a phone turned sideways, a window made narrow, a tablet's keyboard folded
// away). The widths are styles.css's: keep the two in step.
import { useSyncExternalStore } from 'react';

/** A phone held upright, or a window as narrow: one pane at a time, each session a card. */
export const NARROW_SCREEN_QUERY = '(max-width: 640px)';
/** A finger for a pointer (a phone, a tablet): the key row a touch keyboard lacks. */
export const TOUCH_SCREEN_QUERY = '(pointer: coarse)';

function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (listener) => {
      const media = window.matchMedia(query);
      media.addEventListener('change', listener);
      return () => media.removeEventListener('change', listener);
    },
    () => window.matchMedia(query).matches,
  );
}

export function useNarrowScreen(): boolean {
  return useMediaQuery(NARROW_SCREEN_QUERY);
}

/** A touch screen or a narrow one: either may have no Esc, Tab, Ctrl or arrows at hand. */
export function useKeyRowWanted(): boolean {
  const touch = useMediaQuery(TOUCH_SCREEN_QUERY);
  return useNarrowScreen() || touch;
}
