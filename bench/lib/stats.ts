// Summaries of repeated measurements. The machine is noisy, so every figure is
// reported as median [min–max] over rounds, never as a single number.

export interface Summary {
  n: number;
  median: number;
  min: number;
  max: number;
}

export function sortedCopy(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Nearest-rank percentile (p in 0..100) — the same rule ptytool uses. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = sortedCopy(values);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = sortedCopy(values);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarize(values: readonly number[]): Summary {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return { n: 0, median: Number.NaN, min: Number.NaN, max: Number.NaN };
  return { n: finite.length, median: median(finite), min: Math.min(...finite), max: Math.max(...finite) };
}

/** Per-round ratio a[i] / b[i]: both sides measured seconds apart in the same round. */
export function roundRatios(a: readonly number[], b: readonly number[]): number[] {
  const n = Math.min(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(a[i]! / b[i]!);
  return out;
}

/** Three significant figures, enough for figures that vary 2× between rounds. */
export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return '—';
  const abs = Math.abs(v);
  if (abs >= 1000) return Math.round(v).toLocaleString('en-US').replace(/,/g, ' ');
  if (abs >= 100) return v.toFixed(0);
  if (abs >= 10) return v.toFixed(1);
  if (abs >= 1) return v.toFixed(2);
  return v.toFixed(3);
}

/** "54.5 [50.0–57.1]"; a single sample is printed alone. */
export function formatSummary(s: Summary): string {
  if (s.n === 0) return '—';
  if (s.n === 1 || s.min === s.max) return formatNumber(s.median);
  return `${formatNumber(s.median)} [${formatNumber(s.min)}–${formatNumber(s.max)}]`;
}
