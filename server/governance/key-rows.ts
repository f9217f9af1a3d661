import type { BudgetPeriod } from './budget-period.ts';
import type { KeyRecord } from './key-record.ts';

/** A row of the keys table (migrations 1 and 4) as node:sqlite reads it with big integers on. */
export interface KeyRow {
  id: string;
  name: string | null;
  owner: string | null;
  prefix: string;
  secret_hash: Uint8Array;
  budget_microcents: bigint | null;
  budget_period: string | null;
  rpm: bigint | null;
  tpm: bigint | null;
  models: string | null;
  expires_at: bigint | null;
  team: string | null;
  metadata: string;
  created_at: bigint;
  revoked_at: bigint | null;
  rotated_at: bigint | null;
  previous_secret_hash: Uint8Array | null;
  previous_secret_until: bigint | null;
  /** 1 when an identities row names the key (a self-serve key). */
  self_serve: bigint;
}

/** Every key with whether it is self-serve: a key is self-serve exactly when an identity names it. */
export const SELECT_KEYS = `
  SELECT id, name, owner, prefix, secret_hash, budget_microcents, budget_period, rpm, tpm, models, expires_at, team, metadata,
         created_at, revoked_at, rotated_at, previous_secret_hash, previous_secret_until,
         EXISTS (SELECT 1 FROM identities WHERE identities.key_id = keys.id) AS self_serve
  FROM keys ORDER BY created_at, rowid`;

const optionalNumber = (value: bigint | null): number | null => (value === null ? null : Number(value));

export function recordFrom(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    owner: row.owner,
    prefix: row.prefix,
    budgetMicrocents: row.budget_microcents,
    budgetPeriod: row.budget_period as BudgetPeriod | null,
    rpm: optionalNumber(row.rpm),
    tpm: optionalNumber(row.tpm),
    models: row.models === null ? null : (JSON.parse(row.models) as string[]),
    expiresAt: optionalNumber(row.expires_at),
    team: row.team,
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    selfServe: row.self_serve !== 0n,
    createdAt: Number(row.created_at),
    revokedAt: optionalNumber(row.revoked_at),
    rotatedAt: optionalNumber(row.rotated_at),
    previousSecretUntil: optionalNumber(row.previous_secret_until),
  };
}

/** The columns a KeyUpdate can change, in the order of UPDATE_LIMITS's parameters (then the id). */
export function limitColumns(record: KeyRecord): (string | number | bigint | null)[] {
  return [
    record.name,
    record.owner,
    record.budgetMicrocents,
    record.budgetPeriod,
    record.rpm,
    record.tpm,
    record.models === null ? null : JSON.stringify(record.models),
    record.expiresAt,
    record.team,
    JSON.stringify(record.metadata),
  ];
}

export const UPDATE_LIMITS =
  'UPDATE keys SET name = ?, owner = ?, budget_microcents = ?, budget_period = ?, rpm = ?, tpm = ?, models = ?, expires_at = ?, team = ?, metadata = ? WHERE id = ?';

export const INSERT_KEY = `
  INSERT INTO keys (name, owner, budget_microcents, budget_period, rpm, tpm, models, expires_at, team, metadata, id, prefix, secret_hash, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
