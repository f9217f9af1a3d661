import type { BudgetPeriod } from './budget-period.ts';

/**
 * A virtual key as the rest of the gateway sees it. Plain data (strings, numbers, bigints, arrays
 * and plain objects), so it can cross a MessagePort between the thread that owns governance state
 * and the workers. Times are milliseconds since the epoch; money is microcents (shared/money.ts).
 */
export interface KeyRecord {
  readonly id: string;
  readonly name: string | null;
  readonly owner: string | null;
  /** The secret's first characters, for recognising it in a list; not enough to use it. */
  readonly prefix: string;
  /** null: no budget. */
  readonly budgetMicrocents: bigint | null;
  /** null: the budget is for the key's whole life; else it applies to each calendar period (UTC). */
  readonly budgetPeriod: BudgetPeriod | null;
  /** Requests per minute; null: no limit. */
  readonly rpm: number | null;
  /** Tokens (input + output) per minute, reserved at the worst case and settled on real usage; null: no limit. */
  readonly tpm: number | null;
  /** The model and pool names the key may call (as clients send them); null: every one. */
  readonly models: readonly string[] | null;
  /** From this moment the key is refused (401 key_expired); null: never. */
  readonly expiresAt: number | null;
  /** The team whose budget (config.yaml `teams.<name>`) the key's spend also counts against; null: none. */
  readonly team: string | null;
  /** Small string map for people and tools (cost centre, ticket, ...); {} when none. */
  readonly metadata: Readonly<Record<string, string>>;
  /** A self-serve key (issued over OIDC): its secret is derived, so it is never rotated, only revoked. */
  readonly selfServe: boolean;
  readonly createdAt: number;
  readonly revokedAt: number | null;
  /** When the secret was last rotated; null: never. */
  readonly rotatedAt: number | null;
  /** Until then the secret replaced by the last rotation is still accepted; null: it is not. */
  readonly previousSecretUntil: number | null;
}

/** Only the id is read: the owner of the state looks the rest up itself, so a stale copy is harmless. */
export type KeyRef = Pick<KeyRecord, 'id'>;

/** A key with its live figures, for the admin plane. */
export interface KeyState extends KeyRecord {
  /** Spend over the key's whole life. */
  readonly spentMicrocents: bigint;
  /** Spend in the current budget period (the same as spentMicrocents when budgetPeriod is null). */
  readonly periodSpentMicrocents: bigint;
  /** Start of the current budget period; null when budgetPeriod is null. */
  readonly periodStartedAt: number | null;
  /** Held by requests in flight: admitted, not yet settled or released. */
  readonly reservedMicrocents: bigint;
  readonly lastUsedAt: number | null;
}

export interface NewKey {
  readonly name?: string | undefined;
  readonly owner?: string | undefined;
  readonly budgetMicrocents?: bigint | undefined;
  readonly budgetPeriod?: BudgetPeriod | undefined;
  readonly rpm?: number | undefined;
  readonly tpm?: number | undefined;
  readonly models?: readonly string[] | undefined;
  readonly expiresAt?: number | undefined;
  readonly team?: string | undefined;
  readonly metadata?: Readonly<Record<string, string>> | undefined;
}

/**
 * A change to a key (PATCH): a member left out is unchanged, null clears it (no budget, no limit,
 * every model, never expires, no team, no metadata). Takes effect on the key's next request.
 */
export interface KeyUpdate {
  readonly name?: string | null;
  readonly owner?: string | null;
  readonly budgetMicrocents?: bigint | null;
  readonly budgetPeriod?: BudgetPeriod | null;
  readonly rpm?: number | null;
  readonly tpm?: number | null;
  readonly models?: readonly string[] | null;
  readonly expiresAt?: number | null;
  readonly team?: string | null;
  readonly metadata?: Readonly<Record<string, string>> | null;
}

export interface CreatedKey {
  readonly key: KeyState;
  /** The client secret, `gwk_...`: returned this once and never again. */
  readonly secret: string;
}
