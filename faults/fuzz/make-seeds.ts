// Writes the seed corpus, faults/fuzz/corpus/<target>/: valid frames of every
// type (made with the real encoders, so they follow the codecs) and a few
// malformed ones. Run it again after a protocol change and commit the result:
//   node dist/faults/fuzz/make-seeds.js
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeFrameToServer, encodeFrameToViewer, type FrameFromServer, type FrameFromViewer } from '../../src/protocol/viewer-frames.js';
import { encodeFrame, encodeStatePayload, FrameType as HolderType } from '../../src/protocol/holder-frames.js';
import { corpusDir } from './index.js';
import { concat } from './mutate.js';
import { httpSeeds } from './targets/http-seeds.js';
import { websocketSeeds } from './targets/websocket-seeds.js';

const text = (s: string) => new TextEncoder().encode(s);
const writer = Uint8Array.from({ length: 16 }, (_, i) => i * 17);
const modes = {
  cursorX: 3, cursorY: 1, cursorHidden: false, altScreen: true, applicationCursorKeys: true, applicationKeypad: false,
  bracketedPaste: true, sendFocus: false, originMode: false, insertMode: false, wraparound: true, mouseTracking: 'drag', mouseEncoding: 'sgr',
} as const;

function fromViewer(): Record<string, Uint8Array> {
  const frames: Record<string, FrameFromViewer> = {
    'hello-v1': { type: 'hello', protocolVersion: 1, clientKind: 'cli', readOnly: false },
    'hello-writer': { type: 'hello', protocolVersion: 2, clientKind: 'web', readOnly: true, writer },
    subscribe: { type: 'subscribe', channel: 1, sessionId: 's0123456789abcdef', cols: 80, rows: 24 },
    'subscribe-resume': { type: 'subscribe', channel: 7, sessionId: 'sé', cols: 1000, rows: 1, resume: { boot: 'b1', seq: 2 ** 40 }, keepsHistory: true, repaint: true },
    unsubscribe: { type: 'unsubscribe', channel: 3 },
    input: { type: 'input', channel: 1, data: text('ls -l\r') },
    'input-at': { type: 'input-at', channel: 1, at: 4096, data: text('é\x1b[A') },
    'input-at-question': { type: 'input-at', channel: 2, at: 0, data: new Uint8Array(0) },
    'resize-request': { type: 'resize-request', channel: 1, cols: 132, rows: 43 },
    ack: { type: 'ack', channel: 1, seq: 123_456 },
    'scrollback-request': { type: 'scrollback-request', channel: 1, beforeRow: 500, count: 100 },
  };
  const out: Record<string, Uint8Array> = {};
  for (const [name, frame] of Object.entries(frames)) out[name] = encodeFrameToServer(frame);
  out['bad-truncated-hello'] = out['hello-v1']!.subarray(0, 7);
  out['bad-wrong-direction'] = Uint8Array.of(0x83, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  out['bad-unknown-type'] = Uint8Array.of(0x7e, 0, 0, 0, 0);
  out['bad-long-name'] = concat(out.subscribe!.subarray(0, 18), Uint8Array.of(0xff, 0xff));
  return out;
}

function fromServer(): Record<string, Uint8Array> {
  const frames: Record<string, FrameFromServer> = {
    welcome: { type: 'welcome', protocolVersion: 2, serverBoot: 'boot-1', serverVersion: '0.1.0' },
    snapshot: { type: 'snapshot', channel: 1, boot: 'g0123', seq: 77, cols: 80, rows: 24, modes, data: '\x1b[1;31mhi\x1b[0m 世界' },
    'snapshot-view': { type: 'snapshot', channel: 2, boot: 'g0123', seq: 0, cols: 40, rows: 10, modes: { ...modes, mouseTracking: 'none', mouseEncoding: 'unknown' }, data: '', view: true },
    data: { type: 'data', channel: 1, seq: 2 ** 33, data: text('\x1b]0;title\x07out\r\n') },
    resize: { type: 'resize', channel: 1, cols: 100, rows: 30 },
    title: { type: 'title', channel: 1, title: 'vim — main.ts' },
    exit: { type: 'exit', channel: 1, code: -1, signal: 9 },
    state: { type: 'state', channel: 1, state: { status: 'running', nested: { a: [1, 2.5, null] } } },
    error: { type: 'error', channel: 0, code: 4, message: 'bad payload' },
    closed: { type: 'closed', channel: 1, reason: 2, message: 'session ended' },
    scrollback: { type: 'scrollback', channel: 1, firstRow: 10, rows: 2, dropped: 5, oldest: true, text: 'one\r\ntwo' },
    'input-taken': { type: 'input-taken', channel: 1, total: 65_536 },
  };
  const out: Record<string, Uint8Array> = {};
  for (const [name, frame] of Object.entries(frames)) out[name] = encodeFrameToViewer(frame);
  out['bad-state-json'] = concat(out.state!.subarray(0, 5), text('{"a":'));
  out['bad-utf8-title'] = concat(out.title!.subarray(0, 5), Uint8Array.of(0xc3, 0x28));
  out['bad-unsafe-seq'] = concat(out.data!.subarray(0, 5), Uint8Array.of(0, 0, 0, 0, 0, 0, 0x20, 0));
  return out;
}

function holderStream(): Record<string, Uint8Array> {
  const state = encodeFrame(HolderType.STATE, encodeStatePayload({
    version: 2, generation: '00112233445566778899aabbccddeeff', ringStart: 0, offset: 4096, childPid: 1234, fgPgid: 1234,
    cols: 80, rows: 24, exited: false, leased: true, youLease: true, exitCode: 0, exitSignal: 0, startedAtMs: 1_700_000_000_000, ringCapacity: 1 << 20,
  }));
  const u64 = (n: number) => {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setUint32(0, n % 2 ** 32, true);
    new DataView(b.buffer).setUint32(4, Math.floor(n / 2 ** 32), true);
    return b;
  };
  const frames = {
    state,
    acquired: encodeFrame(HolderType.ACQUIRED),
    denied: encodeFrame(HolderType.DENIED, text('leased by pid 42')),
    replay: encodeFrame(HolderType.REPLAY, concat(u64(100), Uint8Array.of(3), text('replayed'))),
    output: encodeFrame(HolderType.OUTPUT, concat(u64(108), text('\x1b[31mred\x1b[0m\r\n'))),
    'input-taken': encodeFrame(0x25, concat(writer, u64(4096))),
    pong: encodeFrame(HolderType.PONG, u64(99)),
    exit: encodeFrame(HolderType.EXIT, Uint8Array.of(1, 0, 0, 0, 0, 0, 0, 0)),
    error: encodeFrame(HolderType.ERROR, concat(Uint8Array.of(6, 0), text('bad size'))),
  };
  // The first byte chooses the chunking (0: a byte at a time); the stream follows.
  const out: Record<string, Uint8Array> = {};
  for (const [name, frame] of Object.entries(frames)) out[name] = concat(Uint8Array.of(name.length), frame);
  out['all-back-to-back'] = concat(Uint8Array.of(0), ...Object.values(frames));
  out['bad-oversize-length'] = concat(Uint8Array.of(5), Uint8Array.of(HolderType.OUTPUT, 0xff, 0xff, 0xff, 0x7f));
  out['bad-unknown-type'] = concat(Uint8Array.of(9), Uint8Array.of(0x23, 1, 0, 0, 0, 0x61));
  out['bad-truncated-output'] = concat(Uint8Array.of(2), frames.output.subarray(0, frames.output.length - 3));
  return out;
}

const corpora: Record<string, Record<string, Uint8Array>> = {
  'viewer-frames-from-viewer': fromViewer(),
  'viewer-frames-from-server': fromServer(),
  'holder-stream': holderStream(),
  ...httpSeeds(),
  ...websocketSeeds(),
};

for (const [target, seeds] of Object.entries(corpora)) {
  const dir = corpusDir(target);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of Object.entries(seeds)) writeFileSync(join(dir, `${name}.bin`), bytes);
  console.log(`${target}: ${Object.keys(seeds).length} seeds`);
}
