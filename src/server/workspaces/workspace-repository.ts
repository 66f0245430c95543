// Workspaces in the store's SQLite file (the `workspaces` table, migration 3).
// The store opened, checked and migrated the file; this repository uses the
// store's connection for the workspace rows only, so the session store keeps
// one job (and a read-only store, read from an in-memory copy, still works).
import Database from 'better-sqlite3';
import type { Disposable } from '../../common/lifecycle.js';
import { parseLayout, LayoutError, type LayoutNode } from '../../protocol/api/layout.js';

export interface WorkspaceRecord {
  name: string;
  layout: LayoutNode | null;
  createdAt: number;
  updatedAt: number;
}

interface WorkspaceRow {
  name: string;
  layout: string | null;
  created_at: number;
  updated_at: number;
}

export interface WorkspaceRepositoryOptions {
  /** The store's connection (Store.database), its file already migrated. */
  db: Database.Database;
  /** The store opened read-only: rows are read, writes are skipped. */
  readOnly: boolean;
  /** Told about a stored layout that no longer reads as one (it is treated as empty). */
  onBadRow?(name: string, reason: string): void;
}

export class WorkspaceStoreReadOnlyError extends Error {}

export class WorkspaceRepository implements Disposable {
  private readonly db: Database.Database;
  private readonly sql;
  readonly readOnly: boolean;

  private constructor(private readonly options: WorkspaceRepositoryOptions) {
    this.readOnly = options.readOnly;
    this.db = options.db;
    this.sql = {
      list: this.db.prepare<[], WorkspaceRow>('SELECT name, layout, created_at, updated_at FROM workspaces ORDER BY created_at, name'),
      get: this.db.prepare<[string], WorkspaceRow>('SELECT name, layout, created_at, updated_at FROM workspaces WHERE name = ?'),
      upsert: this.db.prepare(`INSERT INTO workspaces (name, layout, created_at, updated_at) VALUES (@name, @layout, @now, @now)
        ON CONFLICT (name) DO UPDATE SET layout = excluded.layout, updated_at = excluded.updated_at`),
      remove: this.db.prepare('DELETE FROM workspaces WHERE name = ?'),
    };
  }

  static open(options: WorkspaceRepositoryOptions): WorkspaceRepository {
    return new WorkspaceRepository(options);
  }

  list(): WorkspaceRecord[] {
    return this.sql.list.all().map((row) => this.fromRow(row));
  }

  get(name: string): WorkspaceRecord | undefined {
    const row = this.sql.get.get(name);
    return row === undefined ? undefined : this.fromRow(row);
  }

  /** Creates or replaces a workspace's layout; returns it as stored. Throws on a read-only store. */
  put(name: string, layout: LayoutNode | null, now = Date.now()): WorkspaceRecord {
    this.requireWritable();
    this.sql.upsert.run({ name, layout: layout === null ? null : JSON.stringify(layout), now });
    return this.get(name)!;
  }

  remove(name: string): boolean {
    this.requireWritable();
    return this.sql.remove.run(name).changes > 0;
  }

  private requireWritable(): void {
    if (this.readOnly) throw new WorkspaceStoreReadOnlyError('the store is read-only, so workspace changes cannot be saved');
  }

  private fromRow(row: WorkspaceRow): WorkspaceRecord {
    let layout: LayoutNode | null = null;
    if (row.layout !== null) {
      try {
        layout = parseLayout(JSON.parse(row.layout));
      } catch (err) {
        this.options.onBadRow?.(row.name, err instanceof LayoutError || err instanceof SyntaxError ? err.message : String(err));
      }
    }
    return { name: row.name, layout, createdAt: row.created_at, updatedAt: row.updated_at };
  }

  dispose(): void {
    // The connection is the store's; the store closes it.
  }
}
