// The one string a snapshot is applied with: RIS, then the screen, then the
// input modes the snapshot's header names. One write, so xterm parses it in
// one go and never paints the blank screen between the reset and the screen.
import type { ScreenModes } from '../../../src/protocol/viewer-frames.js';
import { inputModesOn } from '../../../src/protocol/input-modes.js';

const RESET_TO_INITIAL_STATE = '\x1bc';

/**
 * The screen data is rendered for a fresh xterm.js and sets most modes
 * itself; the header's modes are set again after it because the serialized
 * screen cannot carry all of them (the mouse encoding, cursor visibility),
 * and setting a mode twice is harmless. After RIS every mode is off, so only
 * the ones that are on need saying.
 */
export function snapshotPaint(data: string, modes: ScreenModes): string {
  return RESET_TO_INITIAL_STATE + data + inputModesOn(modes);
}
