import type { StatementSync } from 'node:sqlite';
import type { Store } from './store.ts';

/**
 * Sums over the spend ledger that budgets start from: a key's or a team's spend since a period
 * began (indexed by key_id and by team, each with created_at) and every team's lifetime spend.
 */
export class LedgerSums {
  readonly #keySince: StatementSync;
  readonly #teamSince: StatementSync;
  readonly #teamTotals: StatementSync;

  constructor(store: Store) {
    const prepare = (sql: string) => {
      const statement = store.db.prepare(sql);
      statement.setReadBigInts(true);
      return statement;
    };
    this.#keySince = prepare('SELECT coalesce(sum(cost_microcents), 0) AS v FROM spend_ledger WHERE key_id = ? AND created_at >= ?');
    this.#teamSince = prepare('SELECT coalesce(sum(cost_microcents), 0) AS v FROM spend_ledger WHERE team = ? AND created_at >= ?');
    this.#teamTotals = prepare('SELECT team, sum(cost_microcents) AS v FROM spend_ledger WHERE team IS NOT NULL GROUP BY team');
  }

  keySince(keyId: string, startMs: number): bigint {
    return (this.#keySince.get(keyId, startMs) as { v: bigint }).v;
  }

  teamSince(team: string, startMs: number): bigint {
    return (this.#teamSince.get(team, startMs) as { v: bigint }).v;
  }

  teamTotals(): Map<string, bigint> {
    return new Map((this.#teamTotals.all() as unknown as { team: string; v: bigint }[]).map((row) => [row.team, row.v]));
  }
}
