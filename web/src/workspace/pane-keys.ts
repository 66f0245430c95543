// Keys from the phone key row for one pane, over the pane commands' channel
// (pane-commands.ts), so the row reaches the focused pane's terminal without
// the workspace holding it. The pane turns the key into bytes itself, since
// only it knows its terminal's cursor-key mode.
import type { PhoneKey } from '../terminal/phone-keys.js';
import { paneChannel } from './pane-commands.js';

const keys = paneChannel<PhoneKey>('tend-pane-key');

export const sendPaneKey = keys.send;
/** Hears the row's keys for one session's pane until the returned function is called. */
export const onPaneKey = keys.on;
