import { nextPeriodStart, periodStart } from './budget-period.ts';
import type { KeyRecord } from './key-record.ts';
import type { LedgerSums } from './ledger-sums.ts';
import { teamBudgetExceeded } from './refusals.ts';
import { SpendAccount } from './spend-account.ts';
import type { TeamBudget, TeamState } from './team-budget.ts';

/**
 * Teams' budgets over their keys. The budgets come from the configuration (set(), live on every
 * change); the spend is the ledger's rows recorded under each team, loaded at start and added to
 * at each settlement, so a key that moves to another team leaves its past spend where it was.
 * Every team named anywhere has an account (for the admin view), budget or not.
 */
export class TeamLedger {
  readonly #sums: LedgerSums;
  #configured = new Map<string, TeamBudget>();
  readonly #accounts = new Map<string, SpendAccount>();

  constructor(sums: LedgerSums) {
    this.#sums = sums;
    for (const [team, spent] of sums.teamTotals()) this.#accounts.set(team, this.#newAccount(team, spent));
  }

  /** The configured teams (replacing the last set); a team whose budget or period changed is recounted. */
  set(teams: readonly TeamBudget[]): void {
    const next = new Map(teams.map((team) => [team.name, { ...team }]));
    for (const [name, team] of next) {
      const before = this.#configured.get(name);
      if (before?.budgetPeriod !== team.budgetPeriod || before?.budgetMicrocents !== team.budgetMicrocents) this.#accounts.get(name)?.recount();
    }
    this.#configured = next;
  }

  /** Whether the team has a budget in the configuration (its keys may then call only priced models). */
  hasBudget(team: string): boolean {
    return (this.#configured.get(team)?.budgetMicrocents ?? null) !== null;
  }

  /** Throws 402 team_budget_exceeded when the team's budget cannot hold `worstCaseMicrocents` more. */
  check(team: string, worstCaseMicrocents: bigint, nowMs: number): void {
    const budget = this.#configured.get(team);
    if (budget === undefined || budget.budgetMicrocents === null) return;
    const account = this.account(team);
    const spent = account.counted(budget.budgetPeriod, nowMs);
    if (spent + account.reserved + worstCaseMicrocents > budget.budgetMicrocents) {
      const resetsAt = budget.budgetPeriod === null ? undefined : nextPeriodStart(budget.budgetPeriod, nowMs);
      throw teamBudgetExceeded(team, worstCaseMicrocents, budget.budgetMicrocents, spent, account.reserved, resetsAt);
    }
  }

  /** The team's account, rolled to the period of `nowMs` (a settlement at that time adds to it). */
  rolled(team: string, nowMs: number): SpendAccount {
    const account = this.account(team);
    account.counted(this.#configured.get(team)?.budgetPeriod ?? null, nowMs);
    return account;
  }

  account(team: string): SpendAccount {
    let account = this.#accounts.get(team);
    if (account === undefined) {
      account = this.#newAccount(team, 0n);
      this.#accounts.set(team, account);
    }
    return account;
  }

  /** Every configured team, then every team named only on keys or in the ledger, each by name. */
  states(keys: readonly KeyRecord[], nowMs: number): TeamState[] {
    const named = new Set([...this.#accounts.keys(), ...keys.flatMap((key) => (key.team === null ? [] : [key.team]))]);
    const configured = [...this.#configured.keys()].sort();
    const others = [...named].filter((name) => !this.#configured.has(name)).sort();
    return [...configured, ...others].map((name) => {
      const budget = this.#configured.get(name);
      const period = budget?.budgetPeriod ?? null;
      const account = this.account(name);
      return {
        name,
        budgetMicrocents: budget?.budgetMicrocents ?? null,
        budgetPeriod: period,
        configured: budget !== undefined,
        spentMicrocents: account.spent,
        periodSpentMicrocents: account.counted(period, nowMs),
        periodStartedAt: period === null ? null : periodStart(period, nowMs),
        reservedMicrocents: account.reserved,
        keys: keys.filter((key) => key.team === name && key.revokedAt === null).length,
      };
    });
  }

  #newAccount(team: string, spent: bigint): SpendAccount {
    return new SpendAccount((startMs) => this.#sums.teamSince(team, startMs), spent);
  }
}
