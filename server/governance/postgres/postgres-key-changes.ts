import type pg from 'pg';
import type { KeyUpdate } from '../key-record.ts';
import { displayPrefix } from '../key-secret.ts';
import { KeyConflict } from '../refusals.ts';
import { KEY_COLUMNS, type KeyRow, type PostgresKeyCache } from './postgres-keys.ts';

type Query = <R extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<R[]>;

/** The admin API's schema checks these first; this guards every other caller. */
export function checkKeyUpdate(update: KeyUpdate): void {
  if (update.budgetMicrocents != null && update.budgetMicrocents < 0n) throw new RangeError('budget cannot be negative');
  for (const [name, value] of [
    ['rpm', update.rpm],
    ['tpm', update.tpm],
  ] as const) {
    if (value != null && (!Number.isSafeInteger(value) || value < 1)) throw new RangeError(`${name} must be a whole number of at least 1`);
  }
}

/** KeyUpdate members and their columns; a member left out is not written at all. */
const COLUMNS: readonly [keyof KeyUpdate, string, (value: never) => unknown][] = [
  ['name', 'name', (v: string | null) => v],
  ['owner', 'owner', (v: string | null) => v],
  ['budgetMicrocents', 'budget_microcents', (v: bigint | null) => v],
  ['budgetPeriod', 'budget_period', (v: string | null) => v],
  ['rpm', 'rpm', (v: number | null) => v],
  ['tpm', 'tpm', (v: number | null) => v],
  ['models', 'models', (v: readonly string[] | null) => v],
  ['expiresAt', 'expires_at', (v: number | null) => v],
  ['team', 'team', (v: string | null) => v],
  // null clears the map: the column holds {} (a key always has metadata, perhaps empty).
  ['metadata', 'metadata', (v: Record<string, string> | null) => JSON.stringify(v ?? {})],
];

/**
 * PATCH: one UPDATE of the members given. A budget period given drops the period spend counted
 * so far (period_start = null), so the next request or read recomputes it from the ledger rows
 * since the new period's start. The trigger tells every node; undefined: no such key.
 */
export async function updateKeyRow(query: Query, id: string, update: KeyUpdate): Promise<KeyRow | undefined> {
  checkKeyUpdate(update);
  const sets: string[] = [];
  const values: unknown[] = [id];
  for (const [member, column, convert] of COLUMNS) {
    const value = update[member];
    if (value === undefined) continue;
    values.push((convert as (value: unknown) => unknown)(value));
    sets.push(`${column} = $${values.length}`);
  }
  if (update.budgetPeriod !== undefined) sets.push('period_start = NULL'); // recomputed from the ledger on next use
  if (sets.length === 0) return (await query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM gateway_keys WHERE id = $1`, [id]))[0];
  return (await query<KeyRow>(`UPDATE gateway_keys SET ${sets.join(', ')} WHERE id = $1 RETURNING ${KEY_COLUMNS}`, values))[0];
}

/**
 * A new secret for the key, in one conditional UPDATE (so a revocation or another rotation at the
 * same moment on another node cannot be lost): the replaced secret's hash is kept as the previous
 * one until `until` (none when there is no grace), which also ends any older grace. Times are the
 * node's clock, the one that checks them at authentication. undefined: no such key.
 */
export async function rotateKeyRow(
  query: Query,
  keys: PostgresKeyCache,
  id: string,
  secret: string,
  graceSeconds: number,
  nowMs: number,
): Promise<KeyRow | undefined> {
  if (!Number.isSafeInteger(graceSeconds) || graceSeconds < 0) throw new RangeError('grace_seconds must be a whole number of at least 0');
  const until = graceSeconds === 0 ? null : nowMs + graceSeconds * 1000;
  const rows = await query<KeyRow>(
    `UPDATE gateway_keys SET
       previous_secret_hash = CASE WHEN $5::bigint IS NULL THEN NULL ELSE secret_hash END,
       previous_secret_until = $5::bigint,
       secret_hash = $2, prefix = $3, rotated_at = $4
     WHERE id = $1 AND revoked_at IS NULL AND NOT self_serve
     RETURNING ${KEY_COLUMNS}`,
    [id, keys.hash(secret), displayPrefix(secret), nowMs, until],
  );
  if (rows[0] !== undefined) return rows[0];
  const found = (await query<{ revoked_at: string | null; self_serve: boolean }>('SELECT revoked_at, self_serve FROM gateway_keys WHERE id = $1', [id]))[0];
  if (found === undefined) return undefined;
  if (found.revoked_at !== null) throw new KeyConflict('key_revoked', `key ${id} is revoked: a revoked key cannot be rotated; create a new one`);
  throw new KeyConflict(
    'self_serve_key',
    `key ${id} is a self-serve key: its secret is derived from the person's identity, so it cannot be rotated; revoke it instead`,
  );
}
