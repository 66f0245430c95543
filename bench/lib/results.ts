// Printing and writing results: an aligned text table on stdout, and
// bench/results/latest.json + latest.md with the machine and versions.

import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Machine } from './machine.js';
import type { SuiteReport, Table } from './suite.js';

export interface RunReport {
  mode: 'quick' | 'full';
  rounds: number;
  command: string;
  machine: Machine;
  /** the 1-minute load average when the last suite ended: how busy the machine was */
  loadAverageAtEnd1m?: number;
  /** 1, 5 and 15-minute load averages when the last suite ended */
  loadAverageAtEnd?: [number, number, number];
  /** wall time of the whole run, stream generation included */
  elapsedSeconds?: number;
  suites: Array<{ name: string; title: string; seconds?: number } & SuiteReport>;
}

function width(s: string): number {
  return [...s].length;
}

export function formatTextTable(t: Table): string {
  const cells = [t.columns, ...t.rows];
  const widths = t.columns.map((_, c) => Math.max(...cells.map((r) => width(r[c] ?? ''))));
  const line = (r: string[]): string =>
    r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]! + (cell.length - width(cell))))).join('  ');
  const out = [t.title, line(t.columns), widths.map((w) => '-'.repeat(w)).join('  '), ...t.rows.map(line)];
  for (const n of t.notes ?? []) out.push(`  ${n}`);
  return out.join('\n');
}

function markdownTable(t: Table): string {
  const row = (r: string[]): string => `| ${r.join(' | ')} |`;
  const out = [`### ${t.title}`, '', row(t.columns), row(t.columns.map(() => '---')), ...t.rows.map(row)];
  if (t.notes?.length) out.push('', ...t.notes.map((n) => `* ${n}`));
  return out.join('\n');
}

function loadText(l: readonly number[]): string {
  return l.join(' / ');
}

function packagesText(p: Record<string, string> | undefined): string {
  if (!p) return '';
  return Object.entries(p).map(([name, v]) => `${name} ${v}, `).join('');
}

export function formatMarkdown(r: RunReport): string {
  const m = r.machine;
  const out = [
    '# tend benchmark results',
    '',
    `Run ${m.date} with \`${r.command}\` (${r.mode}, ${r.rounds} round${r.rounds === 1 ? '' : 's'}, sides alternating A B A B in each round).`,
    'Every figure is median [min–max] over the rounds; a ratio is taken per round, then summarised the same way.',
    '',
    `Machine: ${m.cores} cores (${m.cpu}), ${m.memoryGiB} GiB, ${m.kernel}.`,
    `Load average (1/5/15 min): ${loadText(m.loadAverageAtStart ?? [m.loadAverage1m])} at start, ${r.loadAverageAtEnd ? loadText(r.loadAverageAtEnd) : r.loadAverageAtEnd1m ?? 'unknown'} at end${r.elapsedSeconds === undefined ? '' : `; the run took ${Math.round(r.elapsedSeconds)} s`}.`,
    `Versions: tend ${m.tendCommit ?? 'unknown'}, Node ${m.node}, ${m.tmux}, ${packagesText(m.packages)}${m.cc}.`,
  ];
  for (const s of r.suites) {
    out.push('', `## ${s.title}`, '');
    if (s.seconds !== undefined) out.push(`\`${s.name}\`, ${s.seconds.toFixed(1)} s.`, '');
    if (s.skipped) out.push(`Skipped: ${s.skipped}`);
    for (const t of s.tables) out.push(markdownTable(t), '');
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

/** Writes both files atomically (temp + rename), so a killed run leaves the old ones. */
export function writeResults(dir: string, r: RunReport): { json: string; md: string } {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'latest.json');
  const md = join(dir, 'latest.md');
  writeFileSync(`${json}.tmp`, JSON.stringify(r, null, 2) + '\n');
  writeFileSync(`${md}.tmp`, formatMarkdown(r));
  renameSync(`${json}.tmp`, json);
  renameSync(`${md}.tmp`, md);
  return { json, md };
}
