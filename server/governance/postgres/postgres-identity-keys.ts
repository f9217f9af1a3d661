import type pg from 'pg';
import type { Logger } from '../../shared/logger.ts';
import { retiredKey, type DeriveSecret, type IdentityKeyRequest, type IssuedIdentityKey } from '../identity-keys.ts';
import type { KeyState } from '../key-record.ts';
import { KEY_COLUMNS, recordFromRow, type KeyRow, type NewKeyRow, type PostgresKeyCache } from './postgres-keys.ts';

type Issued = { issued: IssuedIdentityKey; key: KeyState };

/**
 * Self-serve keys in the shared store, by the same rules as identity-keys.ts (a live key is
 * returned as it is; with none, or a retired one (revoked or expired), the next generation's is created with the team's
 * budget, key row and identity row in one transaction). Every node derives the same secret (from
 * governance_secret) and one exchange per person runs at a time across the fleet, under a
 * transaction-scoped advisory lock on the identity: two nodes exchanging at once for one person
 * create one key, and both hand out that one.
 */
export class PostgresIdentityKeys {
  readonly #pool: pg.Pool;
  readonly #keys: PostgresKeyCache;
  readonly #insertKey: (client: pg.ClientBase, spec: NewKeyRow, secret: string) => Promise<KeyRow>;
  readonly #state: (client: pg.ClientBase, row: KeyRow) => Promise<KeyState>;
  readonly #wall: () => number;
  readonly #log: Logger;

  constructor(options: {
    pool: pg.Pool;
    keys: PostgresKeyCache;
    insertKey: (client: pg.ClientBase, spec: NewKeyRow, secret: string) => Promise<KeyRow>;
    state: (client: pg.ClientBase, row: KeyRow) => Promise<KeyState>;
    wall: () => number;
    log: Logger;
  }) {
    this.#pool = options.pool;
    this.#keys = options.keys;
    this.#insertKey = options.insertKey;
    this.#state = options.state;
    this.#wall = options.wall;
    this.#log = options.log;
  }

  async issue(request: IdentityKeyRequest, derive: DeriveSecret): Promise<Issued> {
    const client = await this.#pool.connect();
    let result: Issued;
    try {
      await client.query('BEGIN');
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended('gateway identity ' || $1 || ' ' || $2, 0))", [request.issuer, request.subject]);
      result = await this.#issueInTransaction(client, request, derive);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    if (result.issued.created)
      this.#log.info(
        { keyId: result.issued.record.id, prefix: result.issued.record.prefix, team: result.issued.team, generation: result.issued.generation },
        'self-serve key issued',
      );
    return result;
  }

  async #issueInTransaction(client: pg.PoolClient, request: IdentityKeyRequest, derive: DeriveSecret): Promise<Issued> {
    const now = this.#wall();
    const keys = this.#keys;
    const byHash = async (secret: string) =>
      (await client.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM gateway_keys WHERE secret_hash = $1`, [keys.hash(secret)])).rows[0];
    const saveIdentity = (generation: number, keyId: string) =>
      client.query(
        `INSERT INTO gateway_identities (issuer, subject, generation, key_id, team, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (issuer, subject) DO UPDATE SET generation = excluded.generation, key_id = excluded.key_id, team = excluded.team, updated_at = excluded.updated_at`,
        [request.issuer, request.subject, generation, keyId, request.team, now],
      );
    const retired = (row: KeyRow) => {
      const record = recordFromRow(row);
      return retiredKey(record.revokedAt, record.expiresAt, now);
    };
    const issued = async (row: KeyRow, secret: string, generation: number, team: string, created: boolean): Promise<Issued> => {
      const key = await this.#state(client, row);
      return { issued: { record: keys.get(row.id)!, secret, generation, team, created }, key };
    };
    const known = (
      await client.query<{ generation: number; key_id: string; team: string }>(
        'SELECT generation, key_id, team FROM gateway_identities WHERE issuer = $1 AND subject = $2',
        [request.issuer, request.subject],
      )
    ).rows[0];
    let generation = 0;
    if (known !== undefined) {
      const row = (await client.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM gateway_keys WHERE id = $1`, [known.key_id])).rows[0];
      if (row !== undefined && !retired(row)) {
        const secret = derive(known.generation);
        if (!keys.hash(secret).equals(row.secret_hash)) {
          // Only a changed derivation (code, or a secret swapped behind the store's check) gets here.
          throw new Error(`the derived secret of ${row.id} does not match its stored hash: self-serve keys cannot be re-derived`);
        }
        return issued(row, secret, known.generation, known.team, false);
      }
      generation = known.generation + 1;
    }
    // A key with this generation's secret should not exist; if one does (an identity row lost from
    // a restored backup), a live one is taken back and a retired one is skipped.
    let secret = derive(generation);
    for (let existing = await byHash(secret); existing !== undefined; existing = await byHash(secret)) {
      if (!retired(existing)) {
        await saveIdentity(generation, existing.id);
        return issued(existing, secret, generation, request.team, false);
      }
      secret = derive(++generation);
    }
    const row = await this.#insertKey(
      client,
      {
        name: request.name,
        owner: request.owner,
        budgetMicrocents: request.budgetMicrocents,
        budgetPeriod: null,
        rpm: request.rpm,
        tpm: null,
        models: null,
        expiresAt: null,
        // The team's own budget (config) counts this key's spend too; the key is never rotated.
        team: request.team,
        metadata: {},
        selfServe: true,
      },
      secret,
    );
    await saveIdentity(generation, row.id);
    return issued(row, secret, generation, request.team, true);
  }
}
