// The viewer protocol's two decoders (src/protocol/viewer-frames.ts): what a
// server reads from viewers and what a viewer reads from the server. Besides
// "decodes or throws ViewerFrameError", whatever decodes must encode again
// and decode to the same frame: a frame one side can read but not write, or
// that changes on the way, is a broken codec. And it must encode to as many
// bytes as it came in: a decoder that drops bytes of a field loses data
// (three frame types may legitimately shrink, see MAY_SHRINK).
import {
  decodeFrameFromServer,
  decodeFrameFromViewer,
  encodeFrameToServer,
  encodeFrameToViewer,
  ViewerFrameError,
  type FrameFromServer,
  type FrameFromViewer,
} from '../../../src/protocol/viewer-frames.js';
import { ContractBroken, type FuzzTarget } from '../target.js';
import { plain } from './frame-transcript.js';

/**
 * SUBSCRIBE carries a resume boot even without the resume flag, and the
 * decoder drops it then; STATE's JSON is written without the sender's spacing;
 * WELCOME's fields after the server build are a later server's, which a viewer
 * ignores by design (docs/viewer-protocol.md), so they are not written again.
 */
const MAY_SHRINK: ReadonlySet<string> = new Set(['subscribe', 'state', 'welcome']);

function roundTrip<F extends { type: string }>(data: Uint8Array, decode: (bytes: Uint8Array) => F, encode: (frame: F) => Uint8Array): void {
  let frame: F;
  try {
    frame = decode(data);
  } catch (err) {
    if (err instanceof ViewerFrameError) return;
    throw err;
  }
  let again: F;
  try {
    const encoded = encode(frame);
    if (encoded.length !== data.length && !MAY_SHRINK.has(frame.type)) {
      throw new ContractBroken(`a ${frame.type} frame of ${data.length} bytes encodes again as ${encoded.length}: ${plain(frame)}`);
    }
    again = decode(encoded);
  } catch (err) {
    if (err instanceof ViewerFrameError) throw new ContractBroken(`a decoded ${frame.type} frame does not encode and decode again: ${err.message}`);
    throw err;
  }
  const before = plain(frame);
  const after = plain(again);
  if (before !== after) throw new ContractBroken(`a ${frame.type} frame changes on a round trip: ${before} became ${after}`);
}

export const fromViewer: FuzzTarget = {
  name: 'viewer-frames-from-viewer',
  parses: 'decodeFrameFromViewer, the server reading a viewer (round trip through encodeFrameToServer)',
  fuzz: (data) => roundTrip<FrameFromViewer>(data, decodeFrameFromViewer, encodeFrameToServer),
};

export const fromServer: FuzzTarget = {
  name: 'viewer-frames-from-server',
  parses: 'decodeFrameFromServer, a viewer reading the server (round trip through encodeFrameToViewer)',
  fuzz: (data) => roundTrip<FrameFromServer>(data, decodeFrameFromServer, encodeFrameToViewer),
};
