import type { BudgetLedger, Reservation, Settlement } from './budget-ledger.ts';

interface Waiting {
  readonly reservation: Reservation;
  readonly settlement: Settlement;
  resolve(recorded: boolean): void;
  reject(error: unknown): void;
}

/**
 * Group commit for settlements. Every settlement must be durable before its answer ends, and a
 * durable commit costs a disk flush (milliseconds), so committing one request at a time caps a
 * gateway at a few hundred requests a second. Settlements that arrive in the same turn of the
 * event loop are committed together instead: each caller still waits for its own commit.
 */
export class SettlementBatch {
  private readonly ledger: BudgetLedger;
  private waiting: Waiting[] = [];

  constructor(ledger: BudgetLedger) {
    this.ledger = ledger;
  }

  settle(reservation: Reservation, settlement: Settlement): Promise<boolean> {
    // Refused here, not in the batch, so one bad settlement cannot fail the others.
    if (settlement.costMicrocents < 0n) return Promise.reject(new RangeError(`a cost cannot be negative (${settlement.costMicrocents})`));
    return new Promise((resolve, reject) => {
      this.waiting.push({ reservation, settlement, resolve, reject });
      if (this.waiting.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Commits what is waiting now (also called on close, so nothing waits forever). */
  flush(): void {
    const batch = this.waiting;
    if (batch.length === 0) return;
    this.waiting = [];
    let recorded: boolean[];
    try {
      recorded = this.ledger.settleMany(batch);
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
      else this.settleEachAlone(batch); // the batch recorded nothing: find the one at fault
      return;
    }
    batch.forEach((w, i) => w.resolve(recorded[i]!));
  }

  /**
   * One settlement's fault (a value the store refuses) must not fail the others committed with it:
   * each is retried in a transaction of its own, so only the faulty one is refused. Costs one
   * commit each, on this rare path only. When the store itself is failing, each fails alone too.
   */
  private settleEachAlone(batch: readonly Waiting[]): void {
    for (const w of batch) {
      let recorded: boolean;
      try {
        recorded = this.ledger.settle(w.reservation, w.settlement);
      } catch (error) {
        w.reject(error);
        continue;
      }
      w.resolve(recorded);
    }
  }
}
