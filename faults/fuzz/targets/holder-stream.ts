// The holder's byte stream as the server reads it: FrameReader
// (src/holder-client/frame-reader.ts) splitting it into frames and pieces of
// stream frames, decodeHolderFrame (src/protocol/holder-frames.ts) reading
// each, as holder-connection.ts does. The first input byte chooses how the
// rest is cut into chunks. Besides "decodes or throws HolderProtocolError":
// the frames must not depend on the cutting (the same bytes in one chunk give
// the same frames and the same failure), a piece must start where the last
// one ended, and after ownBuffered() the reader must not read the chunks it
// was given (they are overwritten here).
import { FrameReader } from '../../../src/holder-client/frame-reader.js';
import { decodeHolderFrame, HolderProtocolError, STREAM_FRAME_PREFIX_BYTES } from '../../../src/protocol/holder-frames.js';
import { Random } from '../mutate.js';
import { ContractBroken, type FuzzTarget } from '../target.js';
import { hex, plain } from './frame-transcript.js';

/** Chunks are 1 to this many bytes: small enough that frames straddle them. */
const MAX_CHUNK_BYTES = 64;

function decoded(type: number, payload: Uint8Array): string {
  try {
    return plain(decodeHolderFrame(type, payload));
  } catch (err) {
    if (err instanceof HolderProtocolError) return `refused ${err.code}`;
    throw err;
  }
}

/** What the reader and decoder made of `stream` cut into `chunks`, one line per frame. */
function transcript(stream: Uint8Array, chunkSizes: number[], scribble: boolean): string[] {
  const reader = new FrameReader({ streamed: STREAM_FRAME_PREFIX_BYTES });
  const lines: string[] = [];
  let body: Uint8Array[] = [];
  let bodyBytes = 0;
  const drain = () => {
    for (let frame = reader.next(); frame !== undefined; frame = reader.next()) {
      if (frame.piece === undefined) {
        lines.push(`${frame.type} ${hex(frame.payload)} ${decoded(frame.type, frame.payload)}`);
        continue;
      }
      const { piece } = frame;
      if (piece.at !== bodyBytes) throw new ContractBroken(`a piece of frame ${frame.type} starts at ${piece.at}, the pieces before it end at ${bodyBytes}`);
      body.push(piece.bytes.slice());
      bodyBytes += piece.bytes.length;
      if (piece.last) {
        lines.push(`${frame.type} ${hex(frame.payload)} + ${body.map(hex).join('')} ${decoded(frame.type, frame.payload)}`);
        body = [];
        bodyBytes = 0;
      }
    }
  };
  try {
    let at = 0;
    for (const size of chunkSizes) {
      const chunk = stream.slice(at, at + size);
      at += size;
      reader.push(chunk);
      drain();
      if (scribble) {
        reader.ownBuffered();
        chunk.fill(0xaa);
      }
    }
    reader.end();
  } catch (err) {
    if (!(err instanceof HolderProtocolError)) throw err;
    lines.push(`failed ${err.code}`);
  }
  return lines;
}

function chunking(seed: number, length: number): number[] {
  const random = new Random(seed);
  const sizes: number[] = [];
  for (let left = length; left > 0; ) {
    const size = seed === 0 ? 1 : Math.min(left, 1 + random.below(MAX_CHUNK_BYTES));
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

export const holderStream: FuzzTarget = {
  name: 'holder-stream',
  parses: 'FrameReader and decodeHolderFrame, the server reading a holder (any chunking gives the same frames)',
  fuzz(data) {
    if (data.length === 0) return;
    const seed = data[0]!;
    const stream = data.subarray(1);
    const whole = transcript(stream, stream.length === 0 ? [] : [stream.length], false);
    const cut = transcript(stream, chunking(seed, stream.length), (seed & 1) === 1);
    if (whole.join('\n') !== cut.join('\n')) {
      throw new ContractBroken(`the stream reads differently in chunks (cut by seed ${seed}):\n  whole: ${whole.join(' | ')}\n  cut:   ${cut.join(' | ')}`);
    }
  },
};
