// The source tree keeps its layers and has no import cycles: read from the
// TypeScript sources of src/ and web/src/, no server needed. The rules are
// layer-rules.ts; docs/architecture.md ("Layers") says them in words.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { findCycles, listSources, readSources, type SourceFile } from './import-graph.js';
import { layerOf, layerViolations } from './layer-rules.js';

/** The checkout: this file runs as dist/test/layout/layers.test.js. */
const ROOT = join(import.meta.dirname, '..', '..', '..');

const tree = () => readSources(ROOT, listSources(ROOT, ['src', 'web/src']));

const file = (path: string, ...imports: string[]): SourceFile => ({
  path,
  imports: imports.map((i) => (i.startsWith('node:') ? { kind: 'node', name: i.slice(5) } : { kind: 'file', path: i })),
});

describe('the layers of the source tree', () => {
  test('no import cycles among the modules of src/ and web/src/', () => {
    const files = tree();
    assert.ok(files.length > 100, `read only ${files.length} files: is the checkout where the test thinks?`);
    const cycles = findCycles(files);
    assert.deepEqual(cycles.map((c) => [...c, c[0]].join(' → ')), [], 'import cycles (each file imports the next)');
  });

  test('every import keeps to the layers', () => {
    const files = tree();
    for (const layer of ['protocol', 'common', 'server-core', 'server-http', 'server-wiring', 'cli', 'web'] as const) {
      assert.ok(files.some((f) => layerOf(f.path) === layer), `no file of the ${layer} layer: has the tree moved?`);
    }
    assert.deepEqual(layerViolations(files), []);
  });

  // The checks themselves, on made-up trees: a check that cannot fail proves nothing.
  test('a cycle is reported as the files around it', () => {
    const cycles = findCycles([
      file('src/a.ts', 'src/b.ts'),
      file('src/b.ts', 'src/c.ts'),
      file('src/c.ts', 'src/a.ts', 'src/d.ts'),
      file('src/d.ts'),
      file('src/e.ts', 'src/e.ts'),
    ]);
    assert.deepEqual(cycles.map((c) => [...c].sort()), [['src/a.ts', 'src/b.ts', 'src/c.ts'], ['src/e.ts']]);
  });

  test('imports against the layers are each named, with the rule they break', () => {
    const problems = layerViolations([
      file('src/server/targets.ts', 'src/server/http/errors.ts'),
      file('src/server/http/errors.ts'),
      file('src/server/server.ts', 'src/server/http/errors.ts'),
      file('src/cli/client.ts', 'src/server/paths.ts'),
      file('src/server/paths.ts', 'node:fs'),
      file('src/protocol/frames.ts', 'node:net'),
      file('src/protocol/frames.test.ts', 'node:net'),
      file('src/common/nearest.ts'),
      file('web/src/app.ts', 'src/common/nearest.ts', 'src/common/paths.ts'),
      file('src/common/paths.ts', 'node:path'),
    ]);
    assert.deepEqual(problems.map((p) => p.split(':')[0]), [
      'src/server/targets.ts imports src/server/http/errors.ts',
      'src/cli/client.ts imports src/server/paths.ts',
      'src/protocol/frames.ts imports node',
      'web/src/app.ts imports src/common/paths.ts',
    ]);
  });
});
