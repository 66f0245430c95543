// The store's files (TEND_HOME/tend.db and its -wal and -shm), kept byte for
// byte while no server has them open, and put back the same way: a new build
// may migrate the store, and a rollback must find it as the old build left it.
// A manifest names the files that existed (a file that did not is removed on
// restore) with their sizes and hashes, and the schema version the store had.
import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The store's file and its companions, as src/server/store/store.ts names them. */
const STORE_FILE = 'tend.db';
const STORE_FILES = [STORE_FILE, `${STORE_FILE}-wal`, `${STORE_FILE}-shm`, `${STORE_FILE}-journal`] as const;
const MANIFEST = 'manifest.json';
/** SQLite's header keeps user_version (tend's schema version) at this offset, 4 bytes big-endian. */
const USER_VERSION_OFFSET = 60;

export interface StoreBackupManifest {
  /** Each file that existed, its size and sha256; one absent here was absent in the store. */
  files: Record<string, { bytes: number; sha256: string }>;
  /** The store's schema version (null: no store, or one whose last changes were still in its -wal). */
  schemaVersion: number | null;
  /** The build whose server last had the store open. */
  build: string;
  madeAt: number;
}

function sha256Of(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/**
 * The schema version a closed store is at. With a -wal beside it the header
 * may not have the last change yet: unknown then.
 */
export function storeSchemaVersion(home: string): number | null {
  const file = join(home, STORE_FILE);
  if (!existsSync(file) || existsSync(`${file}-wal`)) return null;
  const header = Buffer.alloc(4);
  const fd = openSync(file, 'r');
  try {
    if (readSync(fd, header, 0, 4, USER_VERSION_OFFSET) < 4) return null;
  } finally {
    closeSync(fd);
  }
  return header.readUInt32BE(0);
}

/** Copies the store's files of `home` into `backupDir` (replacing an older backup there). */
export function backUpStore(home: string, backupDir: string, build: string): StoreBackupManifest {
  rmSync(backupDir, { recursive: true, force: true });
  mkdirSync(backupDir, { recursive: true, mode: 0o700 });
  const manifest: StoreBackupManifest = { files: {}, schemaVersion: storeSchemaVersion(home), build, madeAt: Date.now() };
  for (const name of STORE_FILES) {
    const from = join(home, name);
    if (!existsSync(from)) continue;
    copyFileSync(from, join(backupDir, name));
    const bytes = readFileSync(join(backupDir, name));
    manifest.files[name] = { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  // The manifest last: a backup without one was cut short and is never restored.
  writeFileSync(join(backupDir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  return manifest;
}

export function readBackupManifest(backupDir: string): StoreBackupManifest | null {
  try {
    return JSON.parse(readFileSync(join(backupDir, MANIFEST), 'utf8')) as StoreBackupManifest;
  } catch {
    return null;
  }
}

/**
 * Puts a backup back into `home`, with no server running: each file copied to
 * a temporary name and renamed over the store's, files the backup did not have
 * removed, then every file checked against the manifest. Throws, saying which
 * file, when the result is not byte for byte the backup.
 */
export function restoreStore(home: string, backupDir: string): StoreBackupManifest {
  const manifest = readBackupManifest(backupDir);
  if (manifest === null) throw new Error(`the store backup in ${backupDir} has no manifest (it was cut short)`);
  // Files the backup lacks go first: a -wal left by the other build must never meet the restored main file.
  for (const name of STORE_FILES) if (manifest.files[name] === undefined) rmSync(join(home, name), { force: true });
  for (const name of Object.keys(manifest.files)) {
    const target = join(home, name);
    const temp = `${target}.restoring`;
    copyFileSync(join(backupDir, name), temp);
    renameSync(temp, target);
  }
  for (const [name, expected] of Object.entries(manifest.files)) {
    if (sha256Of(join(home, name)) !== expected.sha256) throw new Error(`${join(home, name)} does not match its backup after the restore`);
  }
  return manifest;
}

/** Total bytes a manifest's files hold. */
export function backupBytes(manifest: StoreBackupManifest): number {
  return Object.values(manifest.files).reduce((sum, f) => sum + f.bytes, 0);
}
