// The terminal input modes a snapshot's header names, as the DEC private
// mode sequences that turn them on. The serialized screen cannot carry all of
// them (mouse encoding, cursor visibility), so every viewer — the CLI's outer
// terminal, the browser's xterm — sets them after the screen, the same way.
import type { ScreenModes } from './viewer-frames.js';

const CSI = '\x1b[';

const MOUSE_TRACKING_MODE: Record<ScreenModes['mouseTracking'], number | null> = {
  none: null,
  x10: 9,
  vt200: 1000,
  drag: 1002,
  any: 1003,
};

const MOUSE_ENCODING_MODE: Record<ScreenModes['mouseEncoding'], number | null> = {
  unknown: null,
  default: null,
  utf8: 1005,
  sgr: 1006,
  urxvt: 1015,
  'sgr-pixels': 1016,
};

/** Sequences that turn on the modes that are on (and hide the cursor if hidden); modes that are off are not mentioned. */
export function inputModesOn(modes: ScreenModes): string {
  let out = '';
  const tracking = MOUSE_TRACKING_MODE[modes.mouseTracking];
  if (tracking !== null) out += `${CSI}?${tracking}h`;
  const encoding = MOUSE_ENCODING_MODE[modes.mouseEncoding];
  if (tracking !== null && encoding !== null) out += `${CSI}?${encoding}h`;
  if (modes.bracketedPaste) out += `${CSI}?2004h`;
  if (modes.sendFocus) out += `${CSI}?1004h`;
  if (modes.applicationCursorKeys) out += `${CSI}?1h`;
  if (modes.applicationKeypad) out += '\x1b=';
  if (modes.cursorHidden) out += `${CSI}?25l`;
  return out;
}
