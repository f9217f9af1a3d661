import pg from 'pg';
import type { Logger } from '../../shared/logger.ts';
import type { BudgetPeriod } from '../budget-period.ts';
import type { KeyRecord } from '../key-record.ts';
import { newKeyId } from '../key-id.ts';
import { displayPrefix, hashKeySecret } from '../key-secret.ts';
import { SecretHashes } from '../secret-hashes.ts';

/** A gateway_keys row as node-postgres returns it (int8 as text, bytea as a Buffer, jsonb parsed). */
export interface KeyRow {
  id: string;
  name: string | null;
  owner: string | null;
  prefix: string;
  secret_hash: Buffer;
  budget_microcents: string | null;
  budget_period: BudgetPeriod | null;
  spent_microcents: string;
  reserved_microcents: string;
  rpm: number | null;
  tpm: number | null;
  models: string[] | null;
  expires_at: string | null;
  team: string | null;
  metadata: Record<string, string>;
  self_serve: boolean;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  rotated_at: string | null;
  previous_secret_hash: Buffer | null;
  previous_secret_until: string | null;
}

export const KEY_COLUMNS =
  'id, name, owner, prefix, secret_hash, budget_microcents, budget_period, spent_microcents, reserved_microcents, rpm, tpm, models, expires_at, team, metadata, self_serve, created_at, last_used_at, revoked_at, rotated_at, previous_secret_hash, previous_secret_until';

const time = (value: string | null): number | null => (value === null ? null : Number(value));

export function recordFromRow(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    owner: row.owner,
    prefix: row.prefix,
    budgetMicrocents: row.budget_microcents === null ? null : BigInt(row.budget_microcents),
    budgetPeriod: row.budget_period,
    rpm: row.rpm,
    tpm: row.tpm,
    models: row.models,
    expiresAt: time(row.expires_at),
    team: row.team,
    metadata: row.metadata,
    selfServe: row.self_serve,
    createdAt: Number(row.created_at),
    revokedAt: time(row.revoked_at),
    rotatedAt: time(row.rotated_at),
    previousSecretUntil: time(row.previous_secret_until),
  };
}

/** A key found by a secret: by its current one, or by the one its last rotation replaced. */
export interface FoundKey {
  readonly record: KeyRecord;
  /** The secret is the previous one: accepted only until record.previousSecretUntil. */
  readonly previous: boolean;
}

const RECONNECT_MS = [100, 250, 500, 1000, 2000];
const UNKNOWN_TTL_MS = 30_000;
const UNKNOWN_REMEMBERED = 10_000;

/**
 * Every key, cached on this node so that authentication is one map lookup (and one HMAC for a
 * secret not seen before, secret-hashes.ts). The cache follows the database: a trigger on
 * gateway_keys NOTIFYs `gateway_keys` with the key's id on every insert and every change of a
 * column cached here (limits, team, expiry, secrets, ...), committed with it, and this node's
 * listening connection reloads that row at once, so a PATCH, a rotation or a revocation on any node
 * is in force here within milliseconds. When the listening connection is lost, it reconnects and
 * reloads everything (notifications sent while it was away are not replayed). A secret missing from
 * the cache is looked up in the database before it is refused: the key may have been created or
 * rotated on another node a moment ago.
 */
export class PostgresKeyCache {
  readonly #pool: pg.Pool;
  readonly #url: string;
  readonly #serverSecret: string;
  readonly #log: Logger;
  readonly #byId = new Map<string, KeyRecord>();
  /** Presented secrets' hashes, remembered: a known key is then found without an HMAC. */
  readonly #hashes: SecretHashes;
  /** Hash (base64) to key id; a rotated key has two until its grace ends. */
  readonly #byHash = new Map<string, { id: string; previous: boolean }>();
  /** The hashes each key is found by now, so a rotation drops the replaced ones. */
  readonly #hashesOf = new Map<string, string[]>();
  /** Hashes the database did not know, until when. */
  readonly #unknown = new Map<string, number>();
  #listener: pg.Client | undefined;
  #attempt = 0;
  #closed = false;
  #reconnect: NodeJS.Timeout | undefined;

  constructor(options: { pool: pg.Pool; url: string; serverSecret: string; log: Logger }) {
    this.#pool = options.pool;
    this.#url = options.url;
    this.#serverSecret = options.serverSecret;
    this.#hashes = new SecretHashes(options.serverSecret);
    this.#log = options.log;
  }

  /** Listens, then loads every key (in this order, so no change falls between the two). */
  async start(): Promise<void> {
    await this.#listen();
  }

  hash(secret: string): Buffer {
    return hashKeySecret(this.#serverSecret, secret);
  }

  /** The cached key for a secret, else the database's (throws when the database cannot be read). */
  async findBySecret(secret: string): Promise<FoundKey | undefined> {
    const key = this.#hashes.lookupKey(secret);
    const cached = this.#found(secret, key);
    if (cached !== undefined) return cached;
    if ((this.#unknown.get(key) ?? 0) > Date.now()) return undefined;
    const { rows } = await this.#pool.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM gateway_keys WHERE secret_hash = $1 OR previous_secret_hash = $1`, [
      Buffer.from(key, 'base64'),
    ]);
    if (rows[0] !== undefined) {
      this.put(rows[0]);
      return this.#found(secret, key);
    }
    // Remembered a while, so a client repeating a wrong key costs no query each time. Safe: a key
    // created or rotated later arrives by NOTIFY (put() forgets it here), and nobody presents a
    // random secret before it exists.
    if (this.#unknown.size >= UNKNOWN_REMEMBERED) this.#unknown.clear();
    this.#unknown.set(key, Date.now() + UNKNOWN_TTL_MS);
    return undefined;
  }

  /** Without a query: a key this node knows. */
  findCached(secret: string): FoundKey | undefined {
    return this.#found(secret, this.#hashes.lookupKey(secret));
  }

  get(id: string): KeyRecord | undefined {
    return this.#byId.get(id);
  }

  /** The cached key, else the database's: a key created on another node may not have arrived yet. */
  async byId(id: string): Promise<KeyRecord | undefined> {
    const cached = this.#byId.get(id);
    if (cached !== undefined) return cached;
    const { rows } = await this.#pool.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM gateway_keys WHERE id = $1`, [id]);
    return rows[0] === undefined ? undefined : this.put(rows[0]);
  }

  put(row: KeyRow): KeyRecord {
    const record = recordFromRow(row);
    for (const old of this.#hashesOf.get(record.id) ?? []) this.#byHash.delete(old);
    const hashes = [row.secret_hash.toString('base64')];
    this.#byHash.set(hashes[0]!, { id: record.id, previous: false });
    if (row.previous_secret_hash !== null) {
      hashes.push(row.previous_secret_hash.toString('base64'));
      this.#byHash.set(hashes[1]!, { id: record.id, previous: true });
    }
    for (const hash of hashes) this.#unknown.delete(hash);
    this.#hashesOf.set(record.id, hashes);
    this.#byId.set(record.id, record);
    return record;
  }

  #found(secret: string, hash: string): FoundKey | undefined {
    const entry = this.#byHash.get(hash);
    const record = entry === undefined ? undefined : this.#byId.get(entry.id);
    if (record === undefined) return undefined;
    this.#hashes.remember(secret, hash);
    return { record, previous: entry!.previous };
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reconnect);
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  async #refresh(id: string): Promise<void> {
    const { rows } = await this.#pool.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM gateway_keys WHERE id = $1`, [id]);
    if (rows[0] !== undefined) this.put(rows[0]);
  }

  async #loadAll(): Promise<void> {
    const { rows } = await this.#pool.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM gateway_keys`);
    for (const row of rows) this.put(row);
  }

  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url, keepAlive: true, connectionTimeoutMillis: 5000 });
    client.on('error', () => undefined); // 'end' follows and reconnects
    client.on('notification', (message) => {
      if (message.channel !== 'gateway_keys' || message.payload === undefined) return;
      this.#refresh(message.payload).catch((error: unknown) => this.#log.warn({ err: error }, 'could not reload a changed key; reloading all'));
    });
    client.once('end', () => {
      if (this.#closed || this.#listener !== client) return;
      this.#listener = undefined;
      this.#log.warn('lost the connection that hears key changes from the other gateways; reconnecting');
      this.#scheduleReconnect();
    });
    try {
      await client.connect();
      await client.query('LISTEN gateway_keys');
      await this.#loadAll();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#listener = client;
    this.#attempt = 0;
  }

  #scheduleReconnect(): void {
    const delay = RECONNECT_MS[Math.min(this.#attempt++, RECONNECT_MS.length - 1)]!;
    this.#reconnect = setTimeout(() => {
      this.#listen().then(
        () => this.#log.info('listening for key changes again; keys reloaded'),
        () => this.#scheduleReconnect(),
      );
    }, delay);
    this.#reconnect.unref();
  }
}

export interface NewKeyRow {
  readonly name: string | null;
  readonly owner: string | null;
  readonly budgetMicrocents: bigint | null;
  readonly budgetPeriod: BudgetPeriod | null;
  readonly rpm: number | null;
  readonly tpm: number | null;
  readonly models: readonly string[] | null;
  readonly expiresAt: number | null;
  readonly team: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly selfServe: boolean;
}

/** Inserts a key whose secret is `secret` (random, or derived for a self-serve key); the trigger tells every node. */
export async function insertKeyRow(client: pg.ClientBase | pg.Pool, keys: PostgresKeyCache, spec: NewKeyRow, secret: string, nowMs: number): Promise<KeyRow> {
  const { rows } = await client.query<KeyRow>(
    `INSERT INTO gateway_keys (id, name, owner, prefix, secret_hash, budget_microcents, budget_period, rpm, tpm, models, expires_at, team, metadata, self_serve, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING ${KEY_COLUMNS}`,
    [
      newKeyId(nowMs),
      spec.name,
      spec.owner,
      displayPrefix(secret),
      keys.hash(secret),
      spec.budgetMicrocents,
      spec.budgetPeriod,
      spec.rpm,
      spec.tpm,
      spec.models,
      spec.expiresAt,
      spec.team,
      JSON.stringify(spec.metadata),
      spec.selfServe,
      nowMs,
    ],
  );
  return rows[0]!;
}
