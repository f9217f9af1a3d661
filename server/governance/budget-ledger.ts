import type { StatementSync } from 'node:sqlite';
import type { Usage } from '../ir/response.ts';
import { budgetExceeded } from './refusals.ts';
import type { Store } from './store.ts';
import { wholeTokens } from './token-price.ts';

/** Money held for one admitted request until it settles or is released. Plain data. */
export interface Reservation {
  readonly id: number;
  readonly keyId: string;
  readonly microcents: bigint;
}

/** What one request really cost, and the record of it kept in the spend ledger. */
export interface Settlement {
  readonly costMicrocents: bigint;
  readonly usage: Usage;
  /**
   * The gateway's own request id (never one a client sent: a reused id settles as a no-op). A
   * second settlement with the same id changes nothing.
   */
  readonly requestId: string;
  readonly model: string;
  readonly lane: string;
  /** The upstream reported no usage and the cost is the gateway's estimate (never zero). */
  readonly estimated: boolean;
}

/** The ledger's columns are SQLite 64-bit integers. */
const MAX_MICROCENTS = 2n ** 63n - 1n;

interface Account {
  spent: bigint;
  reserved: bigint;
}

/**
 * Spend per key. Memory is authoritative (this process holds the store exclusively), and every
 * settlement is committed to the store before settle() returns, so nothing is lost on SIGKILL and
 * spend is reloaded at start. Reserve and settle are synchronous: no other request can run between
 * the budget check and the reservation, so concurrent requests cannot overshoot a budget together.
 */
export class BudgetLedger {
  readonly #store: Store;
  readonly #budgetOf: (keyId: string) => bigint | null;
  readonly #now: () => number;
  readonly #accounts = new Map<string, Account>();
  readonly #outstanding = new Map<number, Reservation>();
  #nextId = 1;
  readonly #insertRow: StatementSync;
  readonly #addSpend: StatementSync;

  constructor(options: { store: Store; budgetOf: (keyId: string) => bigint | null; now: () => number }) {
    this.#store = options.store;
    this.#budgetOf = options.budgetOf;
    this.#now = options.now;
    const spent = options.store.db.prepare('SELECT id, spent_microcents FROM keys WHERE spent_microcents > 0');
    spent.setReadBigInts(true);
    for (const row of spent.all() as unknown as { id: string; spent_microcents: bigint }[]) {
      this.#accounts.set(row.id, { spent: row.spent_microcents, reserved: 0n });
    }
    this.#insertRow = options.store.db.prepare(`
      INSERT INTO spend_ledger (key_id, request_id, model, lane, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_microcents, estimated, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (request_id) DO NOTHING`);
    this.#addSpend = options.store.db.prepare('UPDATE keys SET spent_microcents = spent_microcents + ? WHERE id = ?');
  }

  /**
   * Holds `worstCaseMicrocents` against the key's budget if spent + reserved + it fits, else throws
   * a 402 budget_exceeded. A key without a budget always gets its reservation (it still settles).
   */
  reserve(keyId: string, worstCaseMicrocents: bigint): Reservation {
    if (worstCaseMicrocents < 0n) throw new RangeError(`a reservation cannot be negative (${worstCaseMicrocents})`);
    const account = this.#account(keyId);
    const budget = this.#budgetOf(keyId);
    if (budget !== null && account.spent + account.reserved + worstCaseMicrocents > budget) {
      throw budgetExceeded(worstCaseMicrocents, budget, account.spent, account.reserved);
    }
    account.reserved += worstCaseMicrocents;
    const reservation: Reservation = { id: this.#nextId++, keyId, microcents: worstCaseMicrocents };
    this.#outstanding.set(reservation.id, reservation);
    return reservation;
  }

  /**
   * Records what the request cost: the ledger row and the key's spend in one transaction, committed
   * before this returns (end the response only after). Then the reservation is swapped for the real
   * cost, which may exceed it (settled anyway: the next reservation fails instead). Returns false
   * when this request id was settled before, which changes nothing. If the store throws, the
   * reservation stays held: the budget stays charged the worst case rather than lose the spend.
   */
  settle(reservation: Reservation, settlement: Settlement): boolean {
    return this.settleMany([{ reservation, settlement }])[0]!;
  }

  /**
   * Several settlements in one transaction: one durable commit (one fsync) for all of them, which
   * is what lets a busy gateway settle thousands of requests a second. All or none are recorded.
   */
  settleMany(items: readonly { readonly reservation: Reservation; readonly settlement: Settlement }[]): boolean[] {
    for (const { settlement } of items) {
      if (settlement.costMicrocents < 0n) throw new RangeError(`a cost cannot be negative (${settlement.costMicrocents})`);
      if (settlement.costMicrocents > MAX_MICROCENTS)
        throw new RangeError(`a cost of ${settlement.costMicrocents} µ¢ does not fit the ledger (at most ${MAX_MICROCENTS})`);
    }
    const keyIds = items.map(({ reservation }) => this.#outstanding.get(reservation.id)?.keyId ?? reservation.keyId);
    const recorded = this.#store.transaction(() =>
      items.map(({ settlement }, i) => {
        const keyId = keyIds[i]!;
        const { usage } = settlement;
        const inserted = this.#insertRow.run(
          keyId,
          settlement.requestId,
          settlement.model,
          settlement.lane,
          wholeTokens(usage.inputTokens),
          wholeTokens(usage.outputTokens),
          wholeTokens(usage.cacheReadTokens),
          wholeTokens(usage.cacheWriteTokens),
          settlement.costMicrocents,
          settlement.estimated ? 1 : 0,
          this.#now(),
        );
        if (Number(inserted.changes) === 0) return false;
        this.#addSpend.run(settlement.costMicrocents, keyId);
        return true;
      }),
    );
    items.forEach(({ reservation, settlement }, i) => {
      if (recorded[i]) this.#account(keyIds[i]!).spent += settlement.costMicrocents;
      this.release(reservation);
    });
    return recorded;
  }

  /** Refunds a reservation whose request never reached an upstream that could bill it. Idempotent. */
  release(reservation: Reservation): void {
    const held = this.#outstanding.get(reservation.id);
    if (held === undefined) return;
    this.#outstanding.delete(held.id);
    this.#account(held.keyId).reserved -= held.microcents;
  }

  spent(keyId: string): bigint {
    return this.#accounts.get(keyId)?.spent ?? 0n;
  }

  reserved(keyId: string): bigint {
    return this.#accounts.get(keyId)?.reserved ?? 0n;
  }

  #account(keyId: string): Account {
    let account = this.#accounts.get(keyId);
    if (account === undefined) {
      account = { spent: 0n, reserved: 0n };
      this.#accounts.set(keyId, account);
    }
    return account;
  }
}
