// Seeds for the WebSocket targets: streams of masked frames as a viewer (the
// native one, a browser) sends them, each led by the chunking seed and the
// limit's index that websocket-frames.ts reads first; and upgrade requests as
// a browser and the native viewer write them.
import { encodeFrameToServer } from '../../../src/protocol/viewer-frames.js';

const text = (s: string) => new TextEncoder().encode(s);

/** A client's frame: FIN and opcode, the mask bit, the shortest length form, the mask, the masked payload. */
function frame(opcode: number, payload: Uint8Array, options: { fin?: boolean; mask?: number[]; longForm?: 16 | 64 } = {}): Uint8Array {
  const mask = options.mask ?? [0x37, 0xfa, 0x21, 0x3d];
  const n = payload.length;
  const form = options.longForm ?? (n < 126 ? 7 : n < 65_536 ? 16 : 64);
  const header: number[] = [(options.fin === false ? 0 : 0x80) | opcode];
  if (form === 7) header.push(0x80 | n);
  else if (form === 16) header.push(0x80 | 126, n >> 8, n & 0xff);
  else header.push(0x80 | 127, 0, 0, 0, 0, (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff);
  const masked = payload.map((b, i) => b ^ mask[i % 4]!);
  return Uint8Array.from([...header, ...mask, ...masked]);
}

/** A stream as websocket-frames.ts takes it: the chunking seed, the limit's index (8: 200 bytes, 10: 4096), the frames. */
const stream = (seed: number, limitIndex: number, ...frames: Uint8Array[]) => Uint8Array.from([seed, limitIndex, ...frames.flatMap((f) => [...f])]);

export function websocketSeeds(): Record<string, Record<string, Uint8Array>> {
  const hello = encodeFrameToServer({ type: 'hello', protocolVersion: 2, clientKind: 'cli', readOnly: false });
  const subscribe = encodeFrameToServer({ type: 'subscribe', channel: 1, sessionId: 's0123456789abcdef', cols: 80, rows: 24 });
  const input = encodeFrameToServer({ type: 'input-at', channel: 1, at: 4096, data: text('ls -l\r') });
  const long = Uint8Array.from({ length: 300 }, (_, i) => i & 0xff);
  const closeNormal = Uint8Array.from([0x03, 0xe8, ...text('bye')]);
  const frames: Record<string, Uint8Array> = {
    'attach-start': stream(0, 10, frame(2, hello), frame(2, subscribe), frame(2, input)),
    'typing-random-chunks': stream(7, 10, frame(2, input), frame(2, input, { mask: [0, 0, 0, 0] }), frame(2, input, { mask: [0xff, 0xff, 0xff, 0xff] })),
    'fragmented-with-ping': stream(3, 10, frame(2, subscribe.subarray(0, 5), { fin: false }), frame(9, text('hi')), frame(0, subscribe.subarray(5, 9), { fin: false }), frame(0, subscribe.subarray(9))),
    'long-16-bit-length': stream(5, 10, frame(2, long), frame(10, new Uint8Array(0))),
    'long-64-bit-length': stream(9, 10, frame(2, long, { longForm: 64 })),
    'close-normal': stream(11, 10, frame(2, input), frame(8, closeNormal)),
    'close-empty': stream(13, 10, frame(8, new Uint8Array(0))),
    'close-bom-reason': stream(15, 10, frame(8, Uint8Array.from([0x03, 0xe8, 0xef, 0xbb, 0xbf, 0x61]), { mask: [0, 0, 0, 0] })),
    'over-limit': stream(17, 8, frame(2, long)),
    'over-limit-fragmented': stream(19, 8, frame(2, long.subarray(0, 150), { fin: false }), frame(0, long.subarray(150))),
    'bad-text': stream(21, 10, frame(1, text('{"type":"hello"}'))),
    'bad-unmasked': stream(23, 10, Uint8Array.from([0x82, 0x02, 0x01, 0x02])),
    'bad-close-code': stream(25, 10, frame(8, Uint8Array.from([0x03, 0xed]))),
    'bad-close-utf8': stream(27, 10, frame(8, Uint8Array.from([0x03, 0xe8, 0xc3, 0x28]))),
    'bad-continuation-first': stream(29, 10, frame(0, text('x'))),
    'bad-ping-fragmented': stream(31, 10, frame(9, text('x'), { fin: false })),
    'bad-length-top-bit': stream(33, 10, Uint8Array.from([0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 1])),
  };

  const requests: Record<string, string> = {
    browser:
      'GET\nHost: localhost:7681\nUpgrade: websocket\nConnection: Upgrade\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\n' +
      'Sec-WebSocket-Version: 13\nSec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\nOrigin: http://localhost:7681',
    'native-viewer': 'GET\nHost: localhost\nUpgrade: WebSocket\nConnection: keep-alive, Upgrade\nSec-WebSocket-Version: 13\nSec-WebSocket-Key: AAECAwQFBgcICQoLDA0ODw==',
    'repeated-connection': 'GET\nConnection: keep-alive\nConnection: upgrade\nUpgrade: h2c, websocket\nSec-WebSocket-Version: 13\nSec-WebSocket-Key:  x3JJHMbDL1EzLkh9GBhXDw== ',
    'bad-version': 'GET\nUpgrade: websocket\nConnection: Upgrade\nSec-WebSocket-Version: 8\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    'bad-key': 'GET\nUpgrade: websocket\nConnection: Upgrade\nSec-WebSocket-Version: 13\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ',
    'bad-method': 'POST\nUpgrade: websocket\nConnection: Upgrade\nSec-WebSocket-Version: 13\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
  };
  const handshake: Record<string, Uint8Array> = {};
  for (const [name, request] of Object.entries(requests)) handshake[name] = text(request);
  return { 'websocket-frames': frames, 'websocket-handshake': handshake };
}
