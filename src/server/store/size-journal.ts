// The size journal (the `size_journal` table, migration 5): every size a
// session's screen took, at the holder offset it took effect at. The holder's
// ring keeps bytes but not where the terminal was resized, so without this a
// server that was killed would replay the bytes after its checkpoint at one
// size, and rows written at another width would come back wrapped wrongly.
//
//   journal.record(entry) -> seq       (synchronous: durable before the holder is told)
//   journal.entries(sessionId, generation) -> entries in the order they were written
//   journal.prune(sessionId, generation, coveredSeq)  after a checkpoint that covers coveredSeq
//   journal.forget(sessionId)                  (Store.markDisposed calls it)
import type Database from 'better-sqlite3';

export interface SizeChange {
  sessionId: string;
  /** The holder's generation: offsets count from its start. */
  generation: string;
  /** Holder offset of the first byte parsed at this size. */
  offset: number;
  cols: number;
  rows: number;
}

export interface JournalledSizeChange extends SizeChange {
  /** Grows with every row written, never reused: a checkpoint names the last row it covers by it. */
  seq: number;
}

interface SizeRow {
  seq: number;
  session_id: string;
  generation: string;
  offset: number;
  cols: number;
  rows: number;
}

export class SizeJournal {
  private readonly sql: {
    insert: Database.Statement;
    list: Database.Statement;
    pruneOtherGenerations: Database.Statement;
    pruneCovered: Database.Statement;
    forget: Database.Statement;
    last: Database.Statement;
  };

  constructor(db: Database.Database) {
    this.sql = {
      insert: db.prepare(`INSERT INTO size_journal (session_id, generation, offset, cols, rows)
        VALUES (@sessionId, @generation, @offset, @cols, @rows)`),
      list: db.prepare(`SELECT seq, session_id, generation, offset, cols, rows FROM size_journal
        WHERE session_id = ? AND generation = ? ORDER BY seq`),
      pruneOtherGenerations: db.prepare(`DELETE FROM size_journal WHERE session_id = ? AND generation != ?`),
      // Rows the checkpoint covers, but the last of them: it is the size in effect at the checkpoint.
      pruneCovered: db.prepare(`DELETE FROM size_journal WHERE session_id = @sessionId AND seq < (
        SELECT max(seq) FROM size_journal WHERE session_id = @sessionId AND generation = @generation AND seq <= @covered)`),
      forget: db.prepare(`DELETE FROM size_journal WHERE session_id = ?`),
      last: db.prepare(`SELECT max(seq) AS seq FROM size_journal WHERE session_id = ?`),
    };
  }

  /** Writes one size change and returns its seq. */
  record(change: SizeChange): number {
    return Number(this.sql.insert.run(change).lastInsertRowid);
  }

  /** The session's size changes in this holder generation, oldest first. */
  entries(sessionId: string, generation: string): JournalledSizeChange[] {
    return (this.sql.list.all(sessionId, generation) as SizeRow[]).map((r) => ({
      seq: r.seq,
      sessionId: r.session_id,
      generation: r.generation,
      offset: r.offset,
      cols: r.cols,
      rows: r.rows,
    }));
  }

  /** The seq of the session's last row (0 when it has none): what a checkpoint cut now covers. */
  lastSeq(sessionId: string): number {
    return (this.sql.last.get(sessionId) as { seq: number | null }).seq ?? 0;
  }

  /** After a checkpoint covering rows up to `coveredSeq` of `generation`: keeps the size in effect there and what came after. */
  prune(sessionId: string, generation: string, coveredSeq: number): void {
    this.sql.pruneOtherGenerations.run(sessionId, generation);
    this.sql.pruneCovered.run({ sessionId, generation, covered: coveredSeq });
  }

  /** The session is forgotten: none of its sizes matter any more. */
  forget(sessionId: string): void {
    this.sql.forget.run(sessionId);
  }
}
