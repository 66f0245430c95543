// The import graph of the source tree, read from the files themselves (not
// from the compiled output, which drops type-only imports). TypeScript's own
// pre-processor finds the imports, so an import written in a comment or a
// string is not one, and `import type`, `export … from`, `import('…')` and
// `import('…').Type` all are.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** What one import names: a file of the tree (repository-relative), or a package or Node built-in. */
export type ImportTarget = { kind: 'file'; path: string } | { kind: 'node'; name: string } | { kind: 'package'; name: string } | { kind: 'missing'; spec: string };

export interface SourceFile {
  /** Repository-relative, with forward slashes: `src/server/targets.ts`. */
  path: string;
  imports: ImportTarget[];
}

const SOURCE_FILE = /\.(ts|tsx)$/;

/** Every .ts/.tsx file under `dirs` (repository-relative), declarations left out. */
export function listSources(root: string, dirs: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = `${dir}/${name}`;
      if (statSync(join(root, path)).isDirectory()) {
        if (name !== 'node_modules') walk(path);
      } else if (SOURCE_FILE.test(name) && !name.endsWith('.d.ts')) out.push(path);
    }
  };
  for (const dir of dirs) walk(dir);
  return out.sort();
}

const NODE_BUILTINS = new Set(builtinModules);

/** What `spec`, imported by `from`, names. Relative specs are written as the compiled `.js`; the source is `.ts` or `.tsx`. */
export function resolveImport(root: string, from: string, spec: string): ImportTarget {
  if (spec.startsWith('node:') || NODE_BUILTINS.has(spec)) return { kind: 'node', name: spec.replace(/^node:/, '') };
  if (!spec.startsWith('.')) return { kind: 'package', name: spec };
  const absolute = resolve(root, dirname(from), spec);
  const stem = absolute.replace(/\.js$/, '');
  const tries = [`${stem}.ts`, `${stem}.tsx`, join(stem, 'index.ts'), absolute];
  const found = tries.find((p) => existsSync(p) && statSync(p).isFile());
  if (found === undefined) return { kind: 'missing', spec };
  return { kind: 'file', path: relative(root, found).split('\\').join('/') };
}

/** Reads each file's imports. */
export function readSources(root: string, paths: readonly string[]): SourceFile[] {
  return paths.map((path) => {
    const text = readFileSync(join(root, path), 'utf8');
    const found = ts.preProcessFile(text, true, true).importedFiles;
    return { path, imports: found.map((f) => resolveImport(root, path, f.fileName)) };
  });
}

/**
 * The import cycles among `files`: each a list of files, every one
 * importing the next and the last the first. One cycle for each group of
 * files that reach each other (Tarjan's strongly connected components), so
 * a tangle is reported once, not once per loop through it.
 */
export function findCycles(files: readonly SourceFile[]): string[][] {
  const edges = new Map<string, string[]>();
  for (const f of files) edges.set(f.path, f.imports.flatMap((i) => (i.kind === 'file' ? [i.path] : [])));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (edges.get(v) ?? []).includes(v)) cycles.push(loopThrough(new Set(group), v, edges));
  };
  for (const f of files) if (!index.has(f.path)) visit(f.path);
  return cycles;
}

/** One loop from `start` back to itself inside `group`: the files a person reads to break the cycle. */
function loopThrough(group: Set<string>, start: string, edges: Map<string, string[]>): string[] {
  // Breadth first from start's imports, so the loop reported is a shortest one.
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const at = queue.shift()!;
    for (const to of edges.get(at) ?? []) {
      if (!group.has(to)) continue;
      if (to === start) {
        const loop = [at];
        while (loop[0] !== start) loop.unshift(cameFrom.get(loop[0]!)!);
        return loop;
      }
      if (!cameFrom.has(to)) {
        cameFrom.set(to, at);
        queue.push(to);
      }
    }
  }
  return [start];
}
