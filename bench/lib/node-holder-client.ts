// The Node side of the holder suites: what the tend server will see, using the
// project's HolderConnection (no parsing, just counting), for throughput and
// for keystroke echo.

import { writeFile } from 'node:fs/promises';
import { HolderConnection, type ExitEvent } from '../../src/holder-client/index.js';
import { percentile } from './stats.js';
import type { EchoResult } from './ptytool.js';

async function controller(socket: string): Promise<HolderConnection> {
  const conn = await HolderConnection.connect(socket);
  const lease = await conn.acquire();
  if (lease !== 'acquired') {
    conn.dispose();
    throw new Error(`holder ${socket} denied the lease: ${lease.denied}`);
  }
  return conn;
}

export interface NodeDrainResult {
  bytes: number;
  elapsedMs: number;
  exit: ExitEvent;
}

/** Streams from offset 0, lets the gated child go, counts bytes until EXIT. */
export async function nodeDrain(socket: string, goFifo: string): Promise<NodeDrainResult> {
  const conn = await controller(socket);
  try {
    let bytes = 0;
    conn.onReplay((e) => (bytes += e.bytes.length));
    conn.onOutput((e) => (bytes += e.bytes.length));
    const exited = new Promise<ExitEvent>((resolve, reject) => {
      conn.onExit(resolve);
      conn.onClose((e) => reject(e.error ?? new Error('holder closed before EXIT')));
    });
    await conn.dumpSince(0);
    const start = performance.now();
    await writeFile(goFifo, '\n');
    const exit = await exited;
    const elapsedMs = performance.now() - start;
    conn.kill(); // recorded, you may go
    return { bytes, elapsedMs, exit };
  } finally {
    conn.dispose();
  }
}

const KEYS_PER_LINE = 64;
const LINE_QUIET_MS = 20;
const SETTLE_MS = 300;
const KEY_TIMEOUT_MS = 1000;

/** The ptytool echo method through HolderConnection: one INPUT byte, timed to the next OUTPUT. */
export async function nodeEcho(socket: string, keys: number, gapMs: number): Promise<EchoResult> {
  const conn = await controller(socket);
  try {
    let lastOutputAt = performance.now();
    let waiter: (() => void) | null = null;
    conn.onOutput(() => {
      lastOutputAt = performance.now();
      const w = waiter;
      waiter = null;
      w?.();
    });
    const quiet = async (ms: number): Promise<void> => {
      while (performance.now() - lastOutputAt < ms) {
        await new Promise((r) => setTimeout(r, Math.max(1, ms - (performance.now() - lastOutputAt))));
      }
    };
    await conn.dumpSince(0);
    await quiet(SETTLE_MS);
    const lat: number[] = [];
    let timeouts = 0;
    for (let i = 0; i < keys; i++) {
      const echoed = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          waiter = null;
          resolve(false);
        }, KEY_TIMEOUT_MS);
        waiter = () => {
          clearTimeout(timer);
          resolve(true);
        };
      });
      const t0 = performance.now();
      conn.input(String.fromCharCode(97 + (i % 26)));
      if (await echoed) lat.push((performance.now() - t0) * 1000);
      else timeouts++;
      await quiet(gapMs);
      if ((i + 1) % KEYS_PER_LINE === 0) {
        conn.input('\r');
        await quiet(LINE_QUIET_MS);
      }
    }
    return {
      keys, timeouts,
      p50_us: percentile(lat, 50), p99_us: percentile(lat, 99),
      min_us: Math.min(...lat), max_us: Math.max(...lat),
    };
  } finally {
    conn.dispose();
  }
}
