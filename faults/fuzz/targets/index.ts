// Every fuzz target, by name: the module a worker loads it from, the name it
// is exported under, and the project modules whose branches guide it (paths
// under src/, a folder ending in "/"; the rest loads uninstrumented, which
// keeps start-up short and the coverage map small). The seed corpus of each
// is faults/fuzz/corpus/<name>/.
export interface TargetEntry {
  name: string;
  module: URL;
  exportName: string;
  instrument: string[];
  /** Longest input tried, when not index.ts's MAX_INPUT_BYTES. */
  maxInputBytes?: number;
}

const here = (file: string) => new URL(file, import.meta.url);

export const TARGETS: readonly TargetEntry[] = [
  { name: 'viewer-frames-from-viewer', module: here('./viewer-frames.js'), exportName: 'fromViewer', instrument: ['protocol/viewer-frames.js'] },
  { name: 'viewer-frames-from-server', module: here('./viewer-frames.js'), exportName: 'fromServer', instrument: ['protocol/viewer-frames.js'] },
  {
    name: 'holder-stream',
    module: here('./holder-stream.js'),
    exportName: 'holderStream',
    instrument: ['holder-client/frame-reader.js', 'protocol/holder-frames.js'],
    // Every input is read twice, in small chunks: a KiB holds a dozen frames and keeps it fast.
    maxInputBytes: 1024,
  },
  {
    name: 'http-body',
    module: here('./http.js'),
    exportName: 'httpBody',
    instrument: ['server/http/', 'protocol/api/layout.js', 'protocol/env-name.js'],
  },
  { name: 'http-request-target', module: here('./http.js'), exportName: 'httpRequestTarget', instrument: ['server/http/request-parts.js'] },
  {
    name: 'websocket-frames',
    module: here('./websocket-frames.js'),
    exportName: 'websocketFrames',
    instrument: ['server/http/websocket-frame-reader.js', 'server/http/websocket-close.js'],
    // Every input is read three times, once in small chunks: a KiB holds a dozen frames and 16-bit lengths.
    maxInputBytes: 1024,
  },
  { name: 'websocket-handshake', module: here('./websocket-handshake.js'), exportName: 'websocketHandshake', instrument: ['server/http/websocket-handshake.js'] },
];
