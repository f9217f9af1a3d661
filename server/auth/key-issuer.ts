import { remainingMicrocents } from '../governance/budget-remaining.ts';
import type { Awaitable, OwnerGovernance } from '../governance/governance.ts';
import { microcentsToCentsDown, microcentsToCentsUp } from '../shared/money.ts';
import type { Person } from './identify.ts';
import { identityKeyDeriver } from './key-derivation.ts';

/** A person's key as /auth/token returns it: the secret and the figures around it. Plain data. */
export interface IssuedKey {
  readonly secret: string;
  readonly keyId: string;
  readonly prefix: string;
  /** The team the key was issued for. */
  readonly team: string;
  /** 0 for a person's first key; one more after each revocation. */
  readonly generation: number;
  /** False: the same key as the person's last exchange. */
  readonly created: boolean;
  /** null: no budget. */
  readonly budgetCents: number | null;
  /** What counts against the budget (the current period's spend when the key has a period), rounded up. */
  readonly spentCents: number;
  /** Budget less that spend and what requests in flight hold, rounded down; null: no budget. */
  readonly remainingCents: number | null;
  readonly rpm: number | null;
}

/**
 * Issues self-serve keys. Runs where governance lives (the main thread): a data-plane worker sends
 * it the verified Person, plain data, and gets an IssuedKey back.
 */
export interface KeyIssuer {
  issue(person: Person): Awaitable<IssuedKey>;
}

export function localKeyIssuer(governance: OwnerGovernance, governanceSecret: string): KeyIssuer {
  const derive = identityKeyDeriver(governanceSecret);
  return {
    async issue(person) {
      const identity = { issuer: person.issuer, subject: person.subject };
      const { issued, key } = await governance.issueIdentityKey(
        {
          ...identity,
          team: person.team.name,
          name: `self-serve (${person.team.name})`,
          owner: person.label,
          budgetMicrocents: person.team.budgetMicrocents,
          rpm: person.team.rpm,
        },
        (generation) => derive(identity, generation),
      );
      const budget = key.budgetMicrocents;
      return {
        secret: issued.secret,
        keyId: key.id,
        prefix: key.prefix,
        team: issued.team,
        generation: issued.generation,
        created: issued.created,
        budgetCents: budget === null ? null : microcentsToCentsDown(budget),
        // The same figures as the admin API's spent_cents and remaining_cents: the spend the budget
        // compares (the current period's when the key has a period), and the budget less that and
        // what requests in flight hold.
        spentCents: microcentsToCentsUp(key.periodSpentMicrocents),
        remainingCents: budget === null ? null : microcentsToCentsDown(remainingMicrocents(budget, key.periodSpentMicrocents, key.reservedMicrocents)),
        rpm: key.rpm,
      };
    },
  };
}
