// The layers of the source tree and what each may import. docs/architecture.md
// ("Layers") says the same in words.
//
// Lower layers know nothing of higher ones: the protocols are plain data and
// pure functions any side can load (the browser too); common/ is what more
// than one process needs; the holder client and the shell integration are
// parts the server (and the CLI) use; the server core keeps sessions and
// knows nothing of HTTP, which its http/ layer speaks over it; the CLI talks
// to the server only over the API, starting it as a program, never importing
// it; the browser app shares only the protocols and the Node-free helpers of
// common/.
//
// Type-only imports count like any other. A type names another layer's shape:
// when that layer changes the shape, this one stops compiling, which is the
// coupling the layers are there to prevent. A shape two layers share belongs
// in the lower of them (the API's shapes are src/protocol/api/).
import type { ImportTarget, SourceFile } from './import-graph.js';

export type Layer =
  | 'protocol'
  | 'common'
  | 'holder-client'
  | 'shell-integration'
  | 'server-core'
  | 'server-http'
  | 'server-wiring'
  | 'cli'
  | 'web';

/** The files that make one process of the server and wire its HTTP layer onto the core. */
const SERVER_WIRING = new Set(['src/server/main.ts', 'src/server/server.ts']);

export function layerOf(path: string): Layer | null {
  if (path.startsWith('web/src/')) return 'web';
  if (SERVER_WIRING.has(path)) return 'server-wiring';
  if (path.startsWith('src/server/http/')) return 'server-http';
  const top = /^src\/([^/]+)\//.exec(path)?.[1];
  switch (top) {
    case 'protocol':
    case 'common':
    case 'holder-client':
    case 'shell-integration':
    case 'cli':
      return top;
    case 'server':
      return 'server-core';
    default:
      return null;
  }
}

const BELOW_SERVER: Layer[] = ['holder-client', 'shell-integration', 'common', 'protocol'];

/** Which layers each layer's files may import (its own included). */
export const MAY_IMPORT: Record<Layer, readonly Layer[]> = {
  protocol: ['protocol'],
  common: ['common', 'protocol'],
  'holder-client': ['holder-client', 'common', 'protocol'],
  'shell-integration': ['shell-integration', 'common', 'protocol'],
  'server-core': ['server-core', ...BELOW_SERVER],
  'server-http': ['server-http', 'server-core', ...BELOW_SERVER],
  'server-wiring': ['server-wiring', 'server-http', 'server-core', ...BELOW_SERVER],
  // `tend shell-integration` prints the snippets; the server it starts is a program, not an import.
  cli: ['cli', 'shell-integration', 'common', 'protocol'],
  // common/ only where no Node module is behind it: checked apart (webSafe).
  web: ['web', 'protocol', 'common'],
};

/** Layers whose product code may not import Node's modules (the protocols are loaded by the browser too). */
const NO_NODE: ReadonlySet<Layer> = new Set(['protocol', 'web']);
/** Layers that import no package at all: the protocols are definitions, with nothing to install. */
const NO_PACKAGES: ReadonlySet<Layer> = new Set(['protocol']);

const isTest = (path: string) => /\.test\.tsx?$/.test(path);

const describeTarget = (t: ImportTarget) =>
  t.kind === 'file' ? t.path : t.kind === 'node' ? `node:${t.name}` : t.kind === 'package' ? `the package ${t.name}` : t.spec;

/**
 * Every import against the layers, as a sentence naming both files. A test
 * beside its module (`*.test.ts`) is held to its folder's layer for what it
 * imports from the tree, and may besides import Node, packages and the
 * tests' helpers: it runs under Node, never in a product.
 */
export function layerViolations(files: readonly SourceFile[]): string[] {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const problems: string[] = [];
  for (const file of files) {
    const from = layerOf(file.path);
    if (from === null) continue;
    const test = isTest(file.path);
    for (const target of file.imports) {
      const against = (rule: string) => problems.push(`${file.path} imports ${describeTarget(target)}: ${rule}`);
      if (target.kind === 'missing') {
        against('no such file');
      } else if (target.kind === 'node') {
        if (!test && NO_NODE.has(from)) against(`${from} code may not use Node's modules`);
      } else if (target.kind === 'package') {
        if (!test && NO_PACKAGES.has(from)) against(`${from} code imports no package`);
      } else {
        const to = layerOf(target.path);
        if (to === null) {
          if (!test) against(`product code imports only from src/ and web/src/`);
        } else if (!MAY_IMPORT[from].includes(to)) {
          against(`${from} may import only ${MAY_IMPORT[from].join(', ')}`);
        } else if (from === 'web' && to === 'common') {
          const nodeBehind = nodeImportBehind(target.path, byPath);
          if (nodeBehind !== null) against(`the browser app may import a common/ module only when no Node module is behind it (${nodeBehind})`);
        }
      }
    }
  }
  return problems;
}

/** The first Node module `path` reaches through the tree's imports (as `a.ts → b.ts → node:fs`), or null. */
function nodeImportBehind(path: string, byPath: ReadonlyMap<string, SourceFile>): string | null {
  const seen = new Set<string>();
  const walk = (at: string, trail: string[]): string | null => {
    if (seen.has(at)) return null;
    seen.add(at);
    for (const t of byPath.get(at)?.imports ?? []) {
      if (t.kind === 'node') return [...trail, at, `node:${t.name}`].join(' → ');
      if (t.kind === 'file') {
        const found = walk(t.path, [...trail, at]);
        if (found !== null) return found;
      }
    }
    return null;
  };
  return walk(path, []);
}
