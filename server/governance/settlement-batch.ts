import type { BudgetLedger, Reservation, Settlement } from './budget-ledger.ts';

interface Waiting {
  readonly reservation: Reservation;
  readonly settlement: Settlement;
  resolve(recorded: boolean): void;
  reject(error: unknown): void;
}

/**
 * The longest a settlement waits for others to share its commit, when the requests still upstream
 * are more than those waiting (see `due`).
 */
const GATHER_MS = 2;

/**
 * Group commit for settlements. Every settlement must be durable before its answer ends, and a
 * durable commit costs a disk flush (its fsync: about 140 µs of CPU on a VM's disk, the same for
 * one row as for thirty), so committing one request at a time caps a gateway at a few hundred
 * requests a second. Settlements are committed together instead, each caller still waiting for
 * its own commit: those that arrive in the same turn of the event loop, and, when more of the
 * requests admitted are still upstream than are waiting to settle (a busy gateway: they will
 * settle within a millisecond or two), those that arrive within GATHER_MS of the first. An idle
 * gateway's lone settlement is committed at once.
 */
export class SettlementBatch {
  private readonly ledger: BudgetLedger;
  private waiting: Waiting[] = [];
  private scheduled = false;
  private gathering: NodeJS.Timeout | undefined;
  private readonly flushNow = () => {
    this.scheduled = false;
    this.flush();
  };

  constructor(ledger: BudgetLedger) {
    this.ledger = ledger;
  }

  settle(reservation: Reservation, settlement: Settlement): Promise<boolean> {
    // Refused here, not in the batch, so one bad settlement cannot fail the others.
    if (settlement.costMicrocents < 0n) return Promise.reject(new RangeError(`a cost cannot be negative (${settlement.costMicrocents})`));
    return new Promise((resolve, reject) => {
      this.waiting.push({ reservation, settlement, resolve, reject });
      this.consider();
    });
  }

  /** Commits what is waiting now (also called on close, so nothing waits forever). */
  flush(): void {
    if (this.gathering !== undefined) {
      clearTimeout(this.gathering);
      this.gathering = undefined;
    }
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

  /** At the end of this turn when due (the rest of the turn's settlements join), else within GATHER_MS. */
  private consider(): void {
    if (this.scheduled) return;
    if (this.due()) {
      this.scheduled = true;
      setImmediate(this.flushNow);
    } else this.gathering ??= setTimeout(this.flushNow, GATHER_MS);
  }

  /** Whether the settlements waiting are at least as many as the requests admitted and not yet settling. */
  private due(): boolean {
    return this.waiting.length >= this.ledger.held - this.waiting.length;
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
