#!/usr/bin/env node
// Runs the compiled tests (dist/**/*.test.js) with node:test.
// Arguments narrow the run to files under the given source folders or files,
// e.g. `node scripts/run-tests.js test/holder src/protocol`.
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = resolve(import.meta.dirname, '..');
const dist = join(root, 'dist');

function collect(dir, out) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) collect(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

if (!existsSync(dist)) {
  console.error('tend: no compiled tests; run `npm run build` first');
  process.exit(2);
}
const wanted = process.argv.slice(2).map((a) => join(dist, a.replace(/\.ts$/, '.js')));
const files = collect(dist, [])
  .filter((f) => !f.includes(`${join(dist, 'node_modules')}`))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f === w || f.startsWith(w + '/')))
  .sort();
if (files.length === 0) {
  console.error('tend: no test files matched');
  process.exit(2);
}
const concurrency = process.env.TEND_TEST_CONCURRENCY ?? '2';
const r = spawnSync(
  process.execPath,
  ['--test', `--test-concurrency=${concurrency}`, '--test-timeout=300000', ...files.map((f) => relative(root, f))],
  { cwd: root, stdio: 'inherit' },
);
process.exit(r.status ?? 1);
