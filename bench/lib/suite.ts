// What a suite is: one file under bench/suites/ exporting { name, title, run },
// registered in bench/suites/index.ts. A suite measures, and returns tables
// for people and data for machines; it asserts nothing about speed.

import type { DisposableStore } from '../../src/common/lifecycle.js';
import type { PtyTool } from './ptytool.js';
import type { StreamFile } from './streams.js';

export interface Table {
  title: string;
  columns: string[];
  rows: string[][];
  notes?: string[];
}

export interface SuiteReport {
  tables: Table[];
  /** raw samples and summaries, written to latest.json */
  data: unknown;
  /** set when the suite could not run; printed, never an error */
  skipped?: string;
}

export interface BenchContext {
  quick: boolean;
  rounds: number;
  /** repository root */
  root: string;
  /** this run's private temp dir, removed at the end */
  tmpDir: string;
  /** environment for every helper: no $TMUX, tmux sockets under tmpDir */
  env: NodeJS.ProcessEnv;
  ptytool: PtyTool;
  /** text-sgr, tui-80x24, unicode */
  streams: StreamFile[];
  /** 10 000 coloured rows of 80 columns */
  fill80: StreamFile;
  /** released when the run ends, however it ends */
  owned: DisposableStore;
  log(line: string): void;
}

export interface Suite {
  name: string;
  title: string;
  run(ctx: BenchContext): Promise<SuiteReport>;
}

export function skipped(reason: string): SuiteReport {
  return { tables: [], data: null, skipped: reason };
}
