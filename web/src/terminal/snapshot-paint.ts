// The one string a snapshot is applied with: RIS, then the screen, then the
// input modes the snapshot's header names. One write, so xterm parses it in
// one go and never paints the blank screen between the reset and the screen.
import type { ScreenModes } from '../../../src/protocol/viewer-frames.js';

const CSI = '\x1b[';
const RESET_TO_INITIAL_STATE = '\x1bc';

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

/**
 * The screen data is rendered for a fresh xterm.js and sets most modes
 * itself; the header's modes are set again after it because the serialized
 * screen cannot carry all of them (the mouse encoding, cursor visibility),
 * and setting a mode twice is harmless. After RIS every mode is off, so only
 * the ones that are on need saying.
 */
export function snapshotPaint(data: string, modes: ScreenModes): string {
  let out = RESET_TO_INITIAL_STATE + data;
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
