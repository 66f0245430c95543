import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { instrumentFiles, instrumentModule, COVERAGE_GLOBAL } from './instrument.js';
import { runTarget, type TargetRun } from './run-target.js';
import { Coverage } from './fuzz-loop.js';
import type { Finding } from './fuzz-loop.js';
import { readSeeds } from './index.js';
import { TARGETS } from './targets/index.js';
import type { FuzzTarget } from './target.js';

const fixture = (file: string) => fileURLToPath(new URL(`./fixtures/${file}`, import.meta.url));
const TEST_SEED = 12345;

function plantedRun(exportName: string, overrides: Partial<TargetRun>, findings: Finding[]): TargetRun {
  return {
    targetModule: pathToFileURL(fixture('planted-target.js')).href,
    targetExport: exportName,
    instrumented: instrumentFiles([fixture('planted-parser.js')]),
    seeds: [new Uint8Array(8)],
    maxExecutions: 2_000_000,
    maxMs: 120_000,
    maxLength: 64,
    randomSeed: TEST_SEED,
    onFinding: (f) => findings.push(f),
    ...overrides,
  };
}

describe('the fuzzer', () => {
  test('finds an error behind five byte checks in a row, which blind mutation would not reach, and saves the input', async () => {
    const findings: Finding[] = [];
    const outcome = await runTarget(plantedRun('plantedThrow', { maxExecutions: 300_000 }, findings));
    assert.equal(outcome.stoppedBy, undefined);
    assert.equal(findings.length, 1, `findings: ${findings.map((f) => f.message).join('; ')}`);
    assert.match(findings[0]!.message, /^TypeError: planted/);
    assert.deepEqual([...findings[0]!.input.subarray(0, 5)], [0x54, 0x45, 0x4e, 0x44, 0x21]);
    assert.equal(outcome.progress.executions, 300_000, 'a finding does not stop the run: it goes on to its budget');
  });

  test('an input that never returns is a hang: the worker is stopped and the input reported', async () => {
    const findings: Finding[] = [];
    const outcome = await runTarget(plantedRun('plantedHang', { hangMs: 1500 }, findings));
    assert.match(outcome.stoppedBy ?? '', /hang/);
    assert.equal(findings.length, 1);
    assert.deepEqual([...findings[0]!.input.subarray(0, 5)], [0x54, 0x45, 0x4e, 0x44, 0x21]);
  });

  test("an input that runs the heap away ends the worker at its limit and is reported", async () => {
    const findings: Finding[] = [];
    const outcome = await runTarget(plantedRun('plantedHeap', { heapMb: 64 }, findings));
    assert.match(outcome.stoppedBy ?? '', /heap/);
    assert.equal(findings.length, 1);
    assert.deepEqual([...findings[0]!.input.subarray(0, 5)], [0x54, 0x45, 0x4e, 0x44, 0x21]);
  });

  test('an input that grows the process past its resident limit outside the heap (buffers) is reported', async () => {
    const findings: Finding[] = [];
    const outcome = await runTarget(plantedRun('plantedBuffers', { rssMb: 768 }, findings));
    assert.match(outcome.stoppedBy ?? '', /memory/);
    assert.equal(findings.length, 1);
    assert.deepEqual([...findings[0]!.input.subarray(0, 5)], [0x54, 0x45, 0x4e, 0x44, 0x21]);
  });
});

describe('instrumentation', () => {
  test('an instrumented module behaves as the plain one and counts the branches it takes', async () => {
    const plain = (await import('../../src/protocol/viewer-frames.js')) as typeof import('../../src/protocol/viewer-frames.js');
    const file = fileURLToPath(new URL('../../src/protocol/viewer-frames.js', import.meta.url));
    const coverage = new Coverage();
    (globalThis as Record<string, unknown>)[COVERAGE_GLOBAL] = coverage;
    const dir = mkdtempSync(join(tmpdir(), 'tend-instrument-'));
    try {
      const copy = join(dir, 'viewer-frames.mjs');
      writeFileSync(copy, instrumentModule((await import('node:fs')).readFileSync(file, 'utf8'), pathToFileURL(copy).href).code);
      const counted = (await import(pathToFileURL(copy).href)) as typeof plain;
      for (const frame of [
        { type: 'title', channel: 1, title: 'héllo' },
        { type: 'exit', channel: 2, code: 1, signal: 0 },
        { type: 'state', channel: 3, state: { a: [1] } },
      ] as const) {
        const bytes = plain.encodeFrameToViewer(frame);
        assert.deepEqual(counted.decodeFrameFromServer(bytes), plain.decodeFrameFromServer(bytes));
        assert.deepEqual(counted.encodeFrameToViewer(frame), bytes);
      }
      assert.throws(() => counted.decodeFrameFromServer(Uint8Array.of(0x85)), { code: 'TEND_ERR_FRAME_BAD_PAYLOAD' });
      assert.ok(coverage.takeNew(), 'the runs reached edges');
      assert.ok(coverage.edgesSeen > 20, `edges seen: ${coverage.edgesSeen}`);
      assert.equal(coverage.takeNew(), false, 'nothing ran since');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the targets and their seeds', () => {
  for (const entry of TARGETS) {
    test(`${entry.name}: has seeds, and every seed runs without a finding`, async () => {
      const target = ((await import(entry.module.href)) as Record<string, FuzzTarget>)[entry.exportName]!;
      assert.equal(target.name, entry.name);
      const seeds = readSeeds(entry.name);
      assert.ok(seeds.length >= 5, `${seeds.length} seeds`);
      for (const seed of seeds) target.fuzz(seed);
    });
  }
});
