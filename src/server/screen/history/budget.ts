// The server's memory for history, shared by every session: past the limit,
// the oldest blocks go first, whichever session they belong to (a session
// that floods cannot keep its history at the cost of everyone else's, and
// the server never grows until the OOM killer takes every screen at once).
import type { BudgetMember, HistoryBudgetLike } from './history.js';

export class HistoryBudget implements HistoryBudgetLike {
  private readonly members = new Set<BudgetMember>();
  private total = 0;
  private serial = 0;
  private dropping = false;

  constructor(private limit: number) {}

  get bytes(): number {
    return this.total;
  }

  get limitBytes(): number {
    return this.limit;
  }

  nextSerial(): number {
    return ++this.serial;
  }

  charge(member: BudgetMember, bytes: number): void {
    this.members.add(member);
    this.total += bytes;
    if (!this.dropping) this.dropOverLimit();
  }

  remove(member: BudgetMember): void {
    if (!this.members.delete(member)) return;
    this.total -= member.budgetBytes;
  }

  setLimit(limit: number): void {
    this.limit = limit;
    this.dropOverLimit();
  }

  private dropOverLimit(): void {
    this.dropping = true;
    try {
      while (this.total > this.limit) {
        let oldest: BudgetMember | undefined;
        for (const m of this.members) if (oldest === undefined || m.oldestSerial < oldest.oldestSerial) oldest = m;
        if (oldest === undefined || !Number.isFinite(oldest.oldestSerial)) return;
        this.total -= oldest.dropOldestBlock('budget');
      }
    } finally {
      this.dropping = false;
    }
  }
}
