// The suite's figures for people: printed after each part, and, for a full
// run, written into docs/reliability.md between two marker comments (the rest
// of that file is prose and stays as written).

import { availableParallelism, cpus, totalmem } from 'node:os';
import type { PartResult } from './part.js';

export const BEGIN_MARK = '<!-- faults:begin (written by npm run faults; do not edit by hand) -->';
export const END_MARK = '<!-- faults:end -->';

function mark(f: { met?: boolean; target?: string }): string {
  if (f.met === undefined) return '';
  return f.met ? `ok (target ${f.target})` : `MISSED (target ${f.target})`;
}

export function formatPart(r: PartResult): string {
  const lines = [`-- ${r.part} (${r.seconds.toFixed(0)} s)`];
  if (r.skipped) lines.push(`   skipped: ${r.skipped}`);
  for (const f of r.figures) lines.push(`   ${f.name}: ${f.value}${f.met === undefined ? '' : `   ${mark(f)}`}`);
  for (const finding of r.findings) lines.push(`   finding: ${finding}`);
  return lines.join('\n');
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export interface RunFacts {
  seed: number;
  seconds: number;
  /** How the run was smaller than the full one ('' when it was not). */
  scale: string;
}

export function formatMarkdown(results: readonly PartResult[], run: RunFacts): string {
  const cpu = cpus()[0]?.model ?? 'unknown cpu';
  const out = [
    BEGIN_MARK,
    '',
    `Last run of every part: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${Math.round(run.seconds / 60)} min, seed ${run.seed}; ` +
      `${availableParallelism()} cores (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.versions.node}.`,
  ];
  if (run.scale) out.push('', `**${run.scale}**`);
  for (const r of results) {
    out.push('', `### ${r.part}: ${r.title}`, '');
    if (r.skipped) out.push(`Skipped: ${r.skipped}`, '');
    out.push('| figure | value | target |', '| --- | --- | --- |');
    for (const f of r.figures) out.push(`| ${escapeCell(f.name)} | ${escapeCell(f.value)} | ${f.met === undefined ? '' : escapeCell(mark(f))} |`);
    if (r.findings.length > 0) {
      out.push('', 'Findings:', '');
      for (const finding of r.findings.slice(0, 15)) out.push(`* ${escapeCell(finding).slice(0, 400)}`);
      if (r.findings.length > 15) out.push(`* … and ${r.findings.length - 15} more (printed by the run)`);
    }
  }
  out.push('', END_MARK);
  return out.join('\n');
}

/** The document with its marked section replaced (or appended when it has none). */
export function writeReliabilityDoc(doc: string, results: readonly PartResult[], run: RunFacts): string {
  const section = formatMarkdown(results, run);
  const begin = doc.indexOf(BEGIN_MARK);
  const end = doc.indexOf(END_MARK);
  if (begin === -1 || end < begin) return `${doc.trimEnd()}\n\n${section}\n`;
  return doc.slice(0, begin) + section + doc.slice(end + END_MARK.length);
}
