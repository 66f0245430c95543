#!/usr/bin/env node
// Writes dist/build-id.json: {"version": "...", "build": "..."}. The build id
// is a hash of what the running parts are built from (package.json's version,
// package-lock.json, src/, the holder's and the viewer's C files, web/src),
// not of git: one set of sources gives one id on any machine, and a copy
// without .git (an npm tarball, a copied tree) has one too. The server, the
// CLI and the viewers compare it at every hand-shake, so two trees of one
// version that differ still tell each other apart (docs/api.md, "Versions").
// `npm run build` runs it after tsc; node built-ins only, so a fresh
// `npm install` (prepare → build) runs it too.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
/** Hex digits of the hash kept: short enough to read in a message, long enough never to collide by chance. */
const BUILD_ID_HEX_DIGITS = 16;

/** The files hashed: [directory, which names in it count]; a tree without one of them skips it. */
const SOURCES = [
  ['src', () => true],
  ['web/src', () => true],
  ['holder', (name) => /\.[ch]$/.test(name)],
  ['viewer', (name) => /\.[ch]$/.test(name)],
];

/** Every file under dir (recursively when deep) that `wanted` takes, as paths relative to the root, sorted. */
function filesUnder(dir, wanted, deep) {
  const out = [];
  const walk = (at) => {
    if (!existsSync(at)) return;
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) {
        if (deep) walk(path);
      } else if (wanted(name)) {
        out.push(relative(root, path));
      }
    }
  };
  walk(join(root, dir));
  return out;
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const hash = createHash('sha256');
hash.update(`version\0${pkg.version}\0`);
const lock = join(root, 'package-lock.json');
if (existsSync(lock)) hash.update(`package-lock.json\0`).update(readFileSync(lock)).update('\0');
for (const [dir, wanted] of SOURCES) {
  // The C directories' build/, test/ and fuzz/ are not what runs: their top level alone.
  const deep = dir === 'src' || dir === 'web/src';
  // The path goes in with the content, so a renamed file changes the id too.
  for (const file of filesUnder(dir, wanted, deep)) hash.update(`${file}\0`).update(readFileSync(join(root, file))).update('\0');
}

const id = { version: pkg.version, build: hash.digest('hex').slice(0, BUILD_ID_HEX_DIGITS) };
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist', 'build-id.json'), `${JSON.stringify(id)}\n`);
