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

/** Chunks are 1 to this many bytes: small enough that frames straddle them. */
const MAX_CHUNK_BYTES = 64;

/** Decodes a frame as holder-connection.ts does; its refusal is the codec's own error. */
function decode(type: number, payload: Uint8Array): void {
  try {
    decodeHolderFrame(type, payload);
  } catch (err) {
    if (!(err instanceof HolderProtocolError)) throw err;
  }
}

/** Bytes as a string, one character each: cheap to build and compare. */
const chars = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

/**
 * What the reader made of `stream` cut into chunks of these sizes, one line
 * per frame (a stream frame's pieces joined) and its failure, if any. Each
 * frame is decoded too when `decoding` (decodeHolderFrame depends on the
 * frame's bytes alone, so one of two runs that agree is enough).
 */
function transcript(stream: Uint8Array, chunkSizes: number[], scribble: boolean, decoding: boolean): string[] {
  const reader = new FrameReader({ streamed: STREAM_FRAME_PREFIX_BYTES });
  const lines: string[] = [];
  let body = '';
  let bodyBytes = 0;
  const drain = () => {
    for (let frame = reader.next(); frame !== undefined; frame = reader.next()) {
      if (frame.piece === undefined) {
        lines.push(`${frame.type} ${chars(frame.payload)}`);
        if (decoding) decode(frame.type, frame.payload);
        continue;
      }
      const { piece } = frame;
      if (piece.at !== bodyBytes) throw new ContractBroken(`a piece of frame ${frame.type} starts at ${piece.at}, the pieces before it end at ${bodyBytes}`);
      body += chars(piece.bytes);
      bodyBytes += piece.bytes.length;
      if (piece.last) {
        lines.push(`${frame.type} ${chars(frame.payload)} + ${body}`);
        if (decoding) decode(frame.type, frame.payload);
        body = '';
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
    const whole = transcript(stream, stream.length === 0 ? [] : [stream.length], false, false);
    const cut = transcript(stream, chunking(seed, stream.length), (seed & 1) === 1, true);
    if (whole.join('\n') !== cut.join('\n')) {
      const show = (lines: string[]) => JSON.stringify(lines.map((l) => l.slice(0, 80)));
      throw new ContractBroken(`the stream reads differently in chunks (cut by seed ${seed}): whole ${show(whole)}, cut ${show(cut)}`);
    }
  },
};
