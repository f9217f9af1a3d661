import type { StatementSync } from 'node:sqlite';
import type { Usage } from '../ir/response.ts';
import { nextPeriodStart } from './budget-period.ts';
import type { KeyRecord } from './key-record.ts';
import { LedgerSums } from './ledger-sums.ts';
import { budgetExceeded } from './refusals.ts';
import { SpendAccount } from './spend-account.ts';
import type { Store } from './store.ts';
import { TeamLedger } from './team-ledger.ts';
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

/** What the ledger reads of a key, fresh at every decision: a PATCH is in force for the next request. */
export type KeyBudget = Pick<KeyRecord, 'budgetMicrocents' | 'budgetPeriod' | 'team'>;

/** A reservation as the ledger holds it: the team it was also held against (the key may move). */
interface Held {
  readonly reservation: Reservation;
  readonly team: string | null;
}

/**
 * Spend per key and per team (team-ledger.ts). Memory is authoritative (this process holds the
 * store exclusively), and every settlement is committed to the store before settle() returns, so
 * nothing is lost on SIGKILL and spend is reloaded at start. Reserve and settle are synchronous: no
 * other request can run between the budget checks and the reservation, so concurrent requests
 * cannot overshoot a key's or a team's budget together.
 */
export class BudgetLedger {
  readonly #store: Store;
  readonly #keyOf: (keyId: string) => KeyBudget | undefined;
  readonly #now: () => number;
  readonly #sums: LedgerSums;
  readonly #accounts = new Map<string, SpendAccount>();
  readonly #outstanding = new Map<number, Held>();
  #nextId = 1;
  readonly #insertRow: StatementSync;
  readonly #addSpend: StatementSync;
  /** The teams' budgets and spend; their budgets are set from the configuration. */
  readonly teams: TeamLedger;

  constructor(options: { store: Store; keyOf: (keyId: string) => KeyBudget | undefined; now: () => number }) {
    this.#store = options.store;
    this.#keyOf = options.keyOf;
    this.#now = options.now;
    this.#sums = new LedgerSums(options.store);
    this.teams = new TeamLedger(this.#sums);
    const spent = options.store.db.prepare('SELECT id, spent_microcents FROM keys WHERE spent_microcents > 0');
    spent.setReadBigInts(true);
    for (const row of spent.all() as unknown as { id: string; spent_microcents: bigint }[]) {
      this.#accounts.set(row.id, this.#newAccount(row.id, row.spent_microcents));
    }
    this.#insertRow = options.store.db.prepare(`
      INSERT INTO spend_ledger (key_id, request_id, model, lane, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_microcents, estimated, team, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (request_id) DO NOTHING`);
    this.#addSpend = options.store.db.prepare('UPDATE keys SET spent_microcents = spent_microcents + ? WHERE id = ?');
  }

  /**
   * Holds `worstCaseMicrocents` against the key's budget (its current period's spend, or its
   * lifetime spend, + reserved + it must fit, else 402 budget_exceeded), then against its team's
   * (402 team_budget_exceeded). A key without a budget always gets its reservation (it still settles).
   */
  reserve(keyId: string, worstCaseMicrocents: bigint): Reservation {
    if (worstCaseMicrocents < 0n) throw new RangeError(`a reservation cannot be negative (${worstCaseMicrocents})`);
    const key = this.#keyOf(keyId);
    const now = this.#now();
    const account = this.#account(keyId);
    const budget = key?.budgetMicrocents ?? null;
    if (budget !== null) {
      const period = key?.budgetPeriod ?? null;
      const spent = account.counted(period, now);
      if (spent + account.reserved + worstCaseMicrocents > budget)
        throw budgetExceeded(worstCaseMicrocents, budget, spent, account.reserved, period === null ? undefined : nextPeriodStart(period, now));
    }
    const team = key?.team ?? null;
    if (team !== null) this.teams.check(team, worstCaseMicrocents, now);
    account.reserved += worstCaseMicrocents;
    if (team !== null) this.teams.account(team).reserved += worstCaseMicrocents;
    const reservation: Reservation = { id: this.#nextId++, keyId, microcents: worstCaseMicrocents };
    this.#outstanding.set(reservation.id, { reservation, team });
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
   * Each row records the key's team at this moment; the team's spend is the sum of its rows.
   */
  settleMany(items: readonly { readonly reservation: Reservation; readonly settlement: Settlement }[]): boolean[] {
    for (const { settlement } of items) {
      if (settlement.costMicrocents < 0n) throw new RangeError(`a cost cannot be negative (${settlement.costMicrocents})`);
      if (settlement.costMicrocents > MAX_MICROCENTS)
        throw new RangeError(`a cost of ${settlement.costMicrocents} µ¢ does not fit the ledger (at most ${MAX_MICROCENTS})`);
    }
    const now = this.#now();
    const charged = items.map(({ reservation }) => {
      const keyId = this.#outstanding.get(reservation.id)?.reservation.keyId ?? reservation.keyId;
      const key = this.#keyOf(keyId);
      // Rolled to this moment's period before the rows exist, so the rows are added exactly once.
      const account = this.#account(keyId);
      account.counted(key?.budgetPeriod ?? null, now);
      const team = key?.team ?? null;
      return { keyId, account, team, teamAccount: team === null ? undefined : this.teams.rolled(team, now) };
    });
    const recorded = this.#store.transaction(() =>
      items.map(({ settlement }, i) => {
        const { keyId, team } = charged[i]!;
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
          team,
          now,
        );
        if (Number(inserted.changes) === 0) return false;
        this.#addSpend.run(settlement.costMicrocents, keyId);
        return true;
      }),
    );
    items.forEach(({ reservation, settlement }, i) => {
      if (recorded[i]) {
        charged[i]!.account.add(settlement.costMicrocents);
        charged[i]!.teamAccount?.add(settlement.costMicrocents);
      }
      this.release(reservation);
    });
    return recorded;
  }

  /** Refunds a reservation whose request never reached an upstream that could bill it. Idempotent. */
  release(reservation: Reservation): void {
    const held = this.#outstanding.get(reservation.id);
    if (held === undefined) return;
    this.#outstanding.delete(reservation.id);
    this.#account(held.reservation.keyId).reserved -= held.reservation.microcents;
    if (held.team !== null) this.teams.account(held.team).reserved -= held.reservation.microcents;
  }

  /** Reservations held now: requests admitted and not yet settled or released. */
  get held(): number {
    return this.#outstanding.size;
  }

  /** Lifetime spend. */
  spent(keyId: string): bigint {
    return this.#accounts.get(keyId)?.spent ?? 0n;
  }

  /** The spend the key's budget compares now: its current period's, or its lifetime spend. */
  counted(keyId: string): bigint {
    return this.#account(keyId).counted(this.#keyOf(keyId)?.budgetPeriod ?? null, this.#now());
  }

  reserved(keyId: string): bigint {
    return this.#accounts.get(keyId)?.reserved ?? 0n;
  }

  /** The key's budget or period changed: its period's spend is summed from the ledger again. */
  recount(keyId: string): void {
    this.#accounts.get(keyId)?.recount();
  }

  #account(keyId: string): SpendAccount {
    let account = this.#accounts.get(keyId);
    if (account === undefined) {
      account = this.#newAccount(keyId, 0n);
      this.#accounts.set(keyId, account);
    }
    return account;
  }

  #newAccount(keyId: string, spent: bigint): SpendAccount {
    return new SpendAccount((startMs) => this.#sums.keySince(keyId, startMs), spent);
  }
}
