import pg from 'pg';
import type { Logger } from '../../shared/logger.ts';
import type { KeyRecord } from '../key-record.ts';
import { newKeyId } from '../key-id.ts';
import { displayPrefix, hashKeySecret } from '../key-secret.ts';

/** A gateway_keys row as node-postgres returns it (int8 as text, bytea as a Buffer). */
export interface KeyRow {
  id: string;
  name: string | null;
  owner: string | null;
  prefix: string;
  secret_hash: Buffer;
  budget_microcents: string | null;
  spent_microcents: string;
  reserved_microcents: string;
  rpm: number | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export const KEY_COLUMNS =
  'id, name, owner, prefix, secret_hash, budget_microcents, spent_microcents, reserved_microcents, rpm, created_at, last_used_at, revoked_at';

export function recordFromRow(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    owner: row.owner,
    prefix: row.prefix,
    budgetMicrocents: row.budget_microcents === null ? null : BigInt(row.budget_microcents),
    rpm: row.rpm,
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}

const RECONNECT_MS = [100, 250, 500, 1000, 2000];
const UNKNOWN_TTL_MS = 30_000;
const UNKNOWN_REMEMBERED = 10_000;

/**
 * Every key, cached on this node so that authentication is one HMAC and one map lookup. The cache
 * follows the database: a trigger on gateway_keys NOTIFYs `gateway_keys` with the key's id on
 * every insert and revocation, committed with it, and this node's listening connection reloads
 * that row at once, so a revocation on any node is in force here within milliseconds. When the
 * listening connection is lost, it reconnects and reloads everything (notifications sent while it
 * was away are not replayed). A secret missing from the cache is looked up in the database before
 * it is refused: the key may have been created on another node a moment ago.
 */
export class PostgresKeyCache {
  readonly #pool: pg.Pool;
  readonly #url: string;
  readonly #serverSecret: string;
  readonly #log: Logger;
  readonly #byId = new Map<string, KeyRecord>();
  readonly #idByHash = new Map<string, string>();
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
  async findBySecret(secret: string): Promise<KeyRecord | undefined> {
    const hash = this.hash(secret);
    const key = hash.toString('base64');
    const id = this.#idByHash.get(key);
    if (id !== undefined) return this.#byId.get(id);
    if ((this.#unknown.get(key) ?? 0) > Date.now()) return undefined;
    const { rows } = await this.#pool.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM gateway_keys WHERE secret_hash = $1`, [hash]);
    if (rows[0] !== undefined) return this.put(rows[0]);
    // Remembered a while, so a client repeating a wrong key costs no query each time. Safe: a key
    // created later arrives by NOTIFY (put() forgets it here), and nobody presents a random secret
    // before it exists.
    if (this.#unknown.size >= UNKNOWN_REMEMBERED) this.#unknown.clear();
    this.#unknown.set(key, Date.now() + UNKNOWN_TTL_MS);
    return undefined;
  }

  /** Without a query: a key this node knows. */
  findCached(secret: string): KeyRecord | undefined {
    const id = this.#idByHash.get(this.hash(secret).toString('base64'));
    return id === undefined ? undefined : this.#byId.get(id);
  }

  get(id: string): KeyRecord | undefined {
    return this.#byId.get(id);
  }

  put(row: KeyRow): KeyRecord {
    const record = recordFromRow(row);
    const hash = row.secret_hash.toString('base64');
    this.#byId.set(record.id, record);
    this.#idByHash.set(hash, record.id);
    this.#unknown.delete(hash);
    return record;
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
  readonly rpm: number | null;
}

/** Inserts a key whose secret is `secret` (random, or derived for a self-serve key); the trigger tells every node. */
export async function insertKeyRow(client: pg.ClientBase | pg.Pool, keys: PostgresKeyCache, spec: NewKeyRow, secret: string, nowMs: number): Promise<KeyRow> {
  const { rows } = await client.query<KeyRow>(
    `INSERT INTO gateway_keys (id, name, owner, prefix, secret_hash, budget_microcents, rpm, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${KEY_COLUMNS}`,
    [newKeyId(nowMs), spec.name, spec.owner, displayPrefix(secret), keys.hash(secret), spec.budgetMicrocents, spec.rpm, nowMs],
  );
  return rows[0]!;
}
