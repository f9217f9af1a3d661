/**
 * A virtual key as the rest of the gateway sees it. Plain data (strings, numbers, bigints), so it
 * can cross a MessagePort between the thread that owns governance state and the workers.
 * Times are milliseconds since the epoch; money is microcents (shared/money.ts).
 */
export interface KeyRecord {
  readonly id: string;
  readonly name: string | null;
  readonly owner: string | null;
  /** The secret's first characters, for recognising it in a list; not enough to use it. */
  readonly prefix: string;
  /** null: no budget. */
  readonly budgetMicrocents: bigint | null;
  /** Requests per minute; null: no limit. */
  readonly rpm: number | null;
  readonly createdAt: number;
  readonly revokedAt: number | null;
}

/** Only the id is read: the owner of the state looks the rest up itself, so a stale copy is harmless. */
export type KeyRef = Pick<KeyRecord, 'id'>;

/** A key with its live figures, for the admin plane. */
export interface KeyState extends KeyRecord {
  readonly spentMicrocents: bigint;
  /** Held by requests in flight: admitted, not yet settled or released. */
  readonly reservedMicrocents: bigint;
  readonly lastUsedAt: number | null;
}

export interface NewKey {
  readonly name?: string | undefined;
  readonly owner?: string | undefined;
  readonly budgetMicrocents?: bigint | undefined;
  readonly rpm?: number | undefined;
}

export interface CreatedKey {
  readonly key: KeyState;
  /** The client secret, `gwk_...`: returned this once and never again. */
  readonly secret: string;
}
