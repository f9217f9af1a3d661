import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { GatewayFailure } from '../../ir/error.ts';
import type { Logger } from '../../shared/logger.ts';
import type { Reservation, Settlement } from '../budget-ledger.ts';
import { nextPeriodStart, type BudgetPeriod } from '../budget-period.ts';
import type { Admission, KeyRecord, KeyRef, KeyState, OwnerGovernance, Pass } from '../governance.ts';
import type { DeriveSecret, IdentityKeyRequest } from '../identity-keys.ts';
import { presentedKey } from '../key-carriers.ts';
import { newKeySecret } from '../key-secret.ts';
import { LastUsedMarks } from '../last-used-marks.ts';
import { modelAllowed } from '../model-allow-list.ts';
import type { MillisecondClock } from '../rate-limiter.ts';
import {
  budgetExceeded,
  checkNewKey,
  invalidKey,
  missingKey,
  modelNotAllowed,
  priceUnknown,
  rateLimited,
  revokedKey,
  teamBudgetExceeded,
  tokensPerMinuteExceeded,
  usableKey,
} from '../refusals.ts';
import { wholeTokens } from '../token-price.ts';
import { PostgresIdentityKeys } from './postgres-identity-keys.ts';
import { startLeases } from './postgres-leases.ts';
import { checkKeyUpdate, rotateKeyRow, updateKeyRow } from './postgres-key-changes.ts';
import { keyStates } from './postgres-key-figures.ts';
import { insertKeyRow, KEY_COLUMNS, PostgresKeyCache, type KeyRow, type NewKeyRow } from './postgres-keys.ts';
import { migratePostgres } from './postgres-schema.ts';
import { resolvePostgresSecret } from './postgres-secret.ts';
import { TeamBudgets } from './postgres-teams.ts';
import { usageReport } from './postgres-usage.ts';
import { RoundTripBatch } from './round-trip-batch.ts';
import { asStoreFailure } from './store-unavailable.ts';

export interface PostgresGovernanceOptions {
  /** database_url: never logged (it may carry a password). */
  readonly url: string;
  readonly secret: string | undefined;
  readonly log: Logger;
  /** deny: 503 while the database cannot be reached; allow: known keys pass unmetered. */
  readonly onStoreError: 'deny' | 'allow';
  /** A reservation's lease, renewed every third of it while its request runs. */
  readonly leaseMs: number;
  /** Rate-window times from this clock instead of the database's (tests drive time with it). */
  readonly rateClock?: MillisecondClock;
  /**
   * Milliseconds since the epoch for stored times (created_at, revoked_at, rotation) and for the
   * checks of expiry and of a rotated secret's grace, made on this node from its cached keys;
   * Date.now by default.
   */
  readonly wallClock?: () => number;
  /**
   * Budget periods and the ledger's settlement times from this clock instead of the database's
   * (tests drive a period rollover with it). In production the database's clock decides, the one
   * clock a fleet shares, so every node resets a period at the same instant.
   */
  readonly periodClock?: () => number;
  readonly lastUsedFlushMs?: number;
  /** Connections this node holds; 10 by default. */
  readonly poolSize?: number;
}

const LAST_USED_FLUSH_MS = 5000;
/** How long a settlement the database did not take waits for its retries before the request is told. */
const SETTLE_PATIENCE_MS = 5000;
const RETRY_MS = [100, 250, 500, 1000, 2000];

interface ReserveOutcome {
  ord: number;
  reservation_id: string | null;
  outcome: 'ok' | 'unknown' | 'revoked' | 'budget' | 'team' | 'tpm';
  /** The refusal's figures: money for budget and team; for tpm the limit and the tokens in the window. */
  budget: string | null;
  spent: string | null;
  reserved: string | null;
  team: string | null;
  retry_after_ms: string | null;
}

/**
 * Governance in PostgreSQL, shared by every gateway that names the same database: the budget check
 * and the hold are one conditional UPDATE, the rpm window is rows counted under a per-key lock,
 * settlement is one transaction, all in the database, so they are exact however requests spread
 * over the nodes. Keys are cached per node and kept current by LISTEN/NOTIFY (postgres-keys.ts).
 * Calls that arrive together go together (round-trip-batch.ts): one statement per batch.
 */
export async function createPostgresGovernance(
  options: PostgresGovernanceOptions,
): Promise<OwnerGovernance & { readonly nodeId: string; readonly pool: pg.Pool }> {
  const wall = options.wallClock ?? Date.now;
  /** p_now of the PL/pgSQL: null lets the database's clock decide. */
  const periodNow = () => options.periodClock?.() ?? null;
  /** p_window_now: the rpm and tpm windows' time. */
  const windowNow = () => options.rateClock?.now() ?? null;
  const teams = new TeamBudgets();
  const log = options.log;
  const nodeId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 10,
    keepAlive: true,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection the server closed (a restart): the pool drops it and opens another later.
  pool.on('error', () => undefined);
  let keys: PostgresKeyCache;
  try {
    const client = await pool.connect();
    let serverSecret: string;
    try {
      await migratePostgres(client);
      const secret = await resolvePostgresSecret(client, options.secret);
      if (secret.fromStore) {
        log.warn(
          'governance_secret is not configured: key hashes use a secret kept in the database itself; set governance_secret ({ env } or { file }) before issuing keys, so a copy of the database alone cannot confirm a key',
        );
      }
      serverSecret = secret.value;
    } finally {
      client.release();
    }
    keys = new PostgresKeyCache({ pool, url: options.url, serverSecret, log });
    await keys.start();
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new Error(`cannot use the PostgreSQL store (database_url): ${(error as Error).message}`, { cause: error });
  }

  /** Reservations this node holds, renewed until they settle or are released. */
  const held = new Map<number, Reservation>();
  const lastUsed = new LastUsedMarks();
  let closed = false;
  let outage = false;
  const background = new Set<Promise<unknown>>();

  function storeFailed(error: unknown): void {
    if (!outage) log.error({ err: error }, 'the governance store (PostgreSQL) cannot be reached; requests that need it are refused with 503 until it is back');
    outage = true;
  }
  function storeWorks(): void {
    if (outage) log.info('the governance store (PostgreSQL) can be reached again');
    outage = false;
  }
  async function query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
    try {
      const result = await pool.query<R>(text, values);
      storeWorks();
      return result.rows;
    } catch (error) {
      if (isStoreDown(error)) storeFailed(error);
      throw error;
    }
  }

  const rateBatch = new RoundTripBatch<{ keyId: string; rpm: number; now: number | null }, number | null>(async (items) => {
    const now = items[0]!.now; // one clock per process: a batch shares it
    const rows = await query<{ ord: number; retry_after_ms: string | null }>(
      'SELECT ord, retry_after_ms FROM gateway_take_rate($1::text[], $2::integer[], $3::bigint)',
      [items.map((i) => i.keyId), items.map((i) => i.rpm), now],
    );
    const out: (number | null)[] = new Array(items.length).fill(null);
    for (const row of rows) out[row.ord - 1] = row.retry_after_ms === null ? null : Number(row.retry_after_ms);
    return out;
  });

  const reserveBatch = new RoundTripBatch<{ keyId: string; microcents: bigint; tokens: number }, ReserveOutcome>(async (items) => {
    const rows = await query<ReserveOutcome>(
      'SELECT * FROM gateway_reserve($1::text[], $2::bigint[], $3::bigint[], $4, $5::bigint, $6::text[], $7::bigint[], $8::text[], $9::bigint, $10::bigint)',
      [
        items.map((i) => i.keyId),
        items.map((i) => i.microcents),
        items.map((i) => i.tokens),
        nodeId,
        options.leaseMs,
        ...teams.arguments(),
        periodNow(),
        windowNow(),
      ],
    );
    const out: ReserveOutcome[] = new Array(items.length);
    for (const row of rows) out[row.ord - 1] = row;
    return out;
  });

  const settleBatch = new RoundTripBatch<{ reservation: Reservation; settlement: Settlement }, boolean>(async (items) => {
    const column = <T>(pick: (i: { reservation: Reservation; settlement: Settlement }) => T) => items.map(pick);
    const rows = await query<{ ord: number; recorded: boolean }>(
      'SELECT ord, recorded FROM gateway_settle($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::boolean[], $12::bigint, $13::bigint)',
      [
        column((i) => i.reservation.id),
        column((i) => i.reservation.keyId),
        column((i) => i.settlement.requestId),
        column((i) => i.settlement.model),
        column((i) => i.settlement.lane),
        column((i) => wholeTokens(i.settlement.usage.inputTokens)),
        column((i) => wholeTokens(i.settlement.usage.outputTokens)),
        column((i) => wholeTokens(i.settlement.usage.cacheReadTokens)),
        column((i) => wholeTokens(i.settlement.usage.cacheWriteTokens)),
        column((i) => i.settlement.costMicrocents),
        column((i) => i.settlement.estimated),
        periodNow(),
        windowNow(),
      ],
    );
    const out: boolean[] = new Array(items.length).fill(false);
    for (const row of rows) out[row.ord - 1] = row.recorded;
    return out;
  });

  const releaseBatch = new RoundTripBatch<number, void>(async (ids) => {
    await query('SELECT gateway_release($1::bigint[])', [ids]);
    return ids.map(() => undefined);
  });

  /**
   * Runs `write` until the database takes it (it is idempotent: settlements by request id,
   * releases by reservation id), in the background once `patience` has passed. The reservation
   * stays held, and its lease renewed, until then.
   */
  function persist<T>(write: () => Promise<T>, patience: number, onDone: () => void): Promise<T> {
    const done = (async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await write();
        } catch (error) {
          if (!isStoreDown(error) || closed) throw error;
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
        }
      }
    })();
    background.add(done);
    void done.then(onDone, () => undefined).finally(() => background.delete(done));
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(asStoreFailure(new Error('the store is unavailable'))), patience);
      done.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  /** The key as it is now: a caller's copy may predate a revocation, a PATCH or an expiry. */
  const usable = (key: KeyRef): KeyRecord => usableKey(keys.get(key.id), wall());
  /** The same for an id this node may not have cached yet (created on another node a moment ago). */
  async function usableById(key: KeyRef): Promise<KeyRecord> {
    const record = keys.get(key.id) ?? (await keys.byId(key.id).catch((error: unknown) => Promise.reject(asStoreFailure(error))));
    return usableKey(record, wall());
  }

  async function authenticatePresented(secret: string | undefined): Promise<KeyRecord> {
    if (secret === undefined) throw missingKey();
    let found = keys.findCached(secret);
    if (found === undefined) {
      try {
        found = await keys.findBySecret(secret);
      } catch (error) {
        // An unknown key cannot be checked without the store, whatever on_store_error says.
        throw asStoreFailure(error);
      }
    }
    if (found === undefined) throw invalidKey();
    // A rotated-away secret past its grace is no key at all (not "revoked": the key lives on).
    const until = found.record.previousSecretUntil;
    if (found.previous && (until === null || wall() >= until)) throw invalidKey();
    return usable(found.record);
  }

  /** Takes one request from the key's rate across the fleet; throws a 429 when none is left. */
  async function takeRate(record: KeyRecord): Promise<void> {
    if (record.rpm === null) return;
    let retryAfterMs: number | null;
    try {
      retryAfterMs = await rateBatch.call({ keyId: record.id, rpm: record.rpm, now: options.rateClock?.now() ?? null });
    } catch (error) {
      if (options.onStoreError === 'allow' && isStoreDown(error)) return;
      throw asStoreFailure(error);
    }
    if (retryAfterMs !== null) throw rateLimited(record.rpm, Math.max(1, Math.ceil(retryAfterMs / 1000)));
  }

  /** Gives a refused request's rate back: the newest admission of the key leaves the window. */
  async function refundRate(record: KeyRecord): Promise<void> {
    if (record.rpm === null) return;
    await query('DELETE FROM gateway_admissions WHERE id = (SELECT id FROM gateway_admissions WHERE key_id = $1 ORDER BY at_ms DESC, id DESC LIMIT 1)', [
      record.id,
    ]).catch(() => undefined);
  }

  async function reserve(key: KeyRef, admission: Admission): Promise<Reservation> {
    const record = await usableById(key); // revoked or expired while its body was read: refused now
    if (admission.worstCaseMicrocents < 0n) throw new RangeError(`a reservation cannot be negative (${admission.worstCaseMicrocents})`);
    if (admission.model !== undefined && !modelAllowed(record, admission.model)) {
      await refundRate(record);
      throw modelNotAllowed(admission.model, record.models ?? []);
    }
    if ((record.budgetMicrocents !== null || teams.hasBudget(record.team)) && !admission.priced) {
      await refundRate(record);
      throw priceUnknown(admission.model);
    }
    let outcome: ReserveOutcome;
    try {
      outcome = await reserveBatch.call({ keyId: record.id, microcents: admission.worstCaseMicrocents, tokens: wholeTokens(admission.worstCaseTokens) });
    } catch (error) {
      // Fail open: the request goes on unheld; its settlement is recorded when the store is back.
      if (options.onStoreError === 'allow' && isStoreDown(error)) return { id: 0, keyId: record.id, microcents: admission.worstCaseMicrocents };
      throw asStoreFailure(error);
    }
    if (outcome.outcome === 'ok') {
      const reservation: Reservation = { id: Number(outcome.reservation_id), keyId: record.id, microcents: admission.worstCaseMicrocents };
      held.set(reservation.id, reservation);
      return reservation;
    }
    await refundRate(record);
    if (outcome.outcome === 'unknown') throw invalidKey();
    if (outcome.outcome === 'revoked') throw revokedKey(record.id);
    if (outcome.outcome === 'tpm') {
      const tpm = Number(outcome.budget);
      throw tokensPerMinuteExceeded(tpm, admission.worstCaseTokens, Math.max(1, Math.ceil(Number(outcome.retry_after_ms) / 1000)));
    }
    // When the period starts again, by this node's clock (the database's clock made the decision: near
    // a boundary the two may differ by their skew).
    const resetsAt = (period: BudgetPeriod | null) => (period === null ? undefined : nextPeriodStart(period, periodNow() ?? wall()));
    if (outcome.outcome === 'team') {
      const team = outcome.team!;
      throw teamBudgetExceeded(
        team,
        admission.worstCaseMicrocents,
        BigInt(outcome.budget!),
        BigInt(outcome.spent!),
        BigInt(outcome.reserved!),
        resetsAt(teams.periodOf(team)),
      );
    }
    throw budgetExceeded(
      admission.worstCaseMicrocents,
      BigInt(outcome.budget!),
      BigInt(outcome.spent!),
      BigInt(outcome.reserved!),
      resetsAt(record.budgetPeriod),
    );
  }

  function markUsed(key: KeyRef): void {
    lastUsed.mark(key.id, wall());
  }

  async function flushLastUsed(): Promise<void> {
    const marked = lastUsed.take();
    if (marked === undefined) return;
    try {
      await query(
        'UPDATE gateway_keys k SET last_used_at = greatest(coalesce(k.last_used_at, 0), v.t) FROM unnest($1::text[], $2::bigint[]) AS v(id, t) WHERE k.id = v.id',
        [marked.ids, marked.times],
      );
    } catch (error) {
      lastUsed.back(marked.ids);
      log.warn({ err: error }, 'could not write last_used_at (will retry)');
    }
  }

  /** Rows as admin answers: the cache refreshed from them, with their live figures. */
  const states = (rows: KeyRow[]): Promise<KeyState[]> =>
    keyStates(query, rows, periodNow(), (row) => ({ record: keys.put(row), lastUsedAt: lastUsed.get(row.id) }));
  const state = async (row: KeyRow): Promise<KeyState> => (await states([row]))[0]!;

  const insertKey = (client: pg.ClientBase | pg.Pool, spec: NewKeyRow, secret: string) => insertKeyRow(client, keys, spec, secret, wall());
  const stateOf = (client: pg.ClientBase, row: KeyRow): Promise<KeyState> =>
    keyStates(
      async (text, values) => (await client.query(text, values)).rows,
      [row],
      periodNow(),
      (r) => ({ record: keys.put(r), lastUsedAt: lastUsed.get(r.id) }),
    ).then((all) => all[0]!);
  const identityKeys = new PostgresIdentityKeys({ pool, keys, insertKey, state: stateOf, wall, log });
  const issueIdentityKey = (request: IdentityKeyRequest, derive: DeriveSecret) => {
    checkNewKey({ budgetMicrocents: request.budgetMicrocents ?? undefined, rpm: request.rpm ?? undefined });
    return identityKeys.issue(request, derive);
  };

  const leases = startLeases({ query, held: () => held.keys(), leaseMs: options.leaseMs, periodNow, windowNow, log });
  const flushTimer = setInterval(() => void flushLastUsed(), options.lastUsedFlushMs ?? LAST_USED_FLUSH_MS);
  flushTimer.unref();

  return {
    nodeId,
    /** For the configuration history (postgres-config-history.ts), which shares the connections. */
    pool,
    authenticate: (headers, query) => authenticatePresented(presentedKey(headers, query)),
    authenticatePresented,
    authorize: (headers, query) => authorizePresented(presentedKey(headers, query)),
    authorizePresented,
    async admit(key, admission) {
      await takeRate(await usableById(key));
      return reserve(key, admission);
    },
    reserve,
    async settle(reservation, settlement) {
      if (settlement.costMicrocents < 0n) throw new RangeError(`a cost cannot be negative (${settlement.costMicrocents})`);
      if (settlement.costMicrocents > 2n ** 63n - 1n) throw new RangeError(`a cost of ${settlement.costMicrocents} µ¢ does not fit the ledger`);
      return persist(
        () => settleBatch.call({ reservation, settlement }),
        SETTLE_PATIENCE_MS,
        () => held.delete(reservation.id),
      );
    },
    async release(reservation) {
      if (!held.has(reservation.id)) return;
      // Held (and renewed) until the database has taken the refund: a lost refund would be charged by the lease rule.
      await persist(
        () => releaseBatch.call(reservation.id),
        SETTLE_PATIENCE_MS,
        () => held.delete(reservation.id),
      ).catch((error: unknown) => {
        log.warn({ err: error }, 'a reservation could not be released yet (retrying in the background)');
      });
    },
    markUsed,

    async createKey(spec) {
      checkNewKey(spec);
      const secret = newKeySecret();
      checkKeyUpdate({ tpm: spec.tpm });
      const row = await insertKey(
        pool,
        {
          name: spec.name ?? null,
          owner: spec.owner ?? null,
          budgetMicrocents: spec.budgetMicrocents ?? null,
          budgetPeriod: spec.budgetPeriod ?? null,
          rpm: spec.rpm ?? null,
          tpm: spec.tpm ?? null,
          models: spec.models ?? null,
          expiresAt: spec.expiresAt ?? null,
          team: spec.team ?? null,
          metadata: spec.metadata ?? {},
          selfServe: false,
        },
        secret,
      );
      log.info({ keyId: row.id, prefix: row.prefix }, 'key created');
      return { key: await state(row), secret };
    },
    async listKeys() {
      return states(await query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM gateway_keys ORDER BY created_at, position`, []));
    },
    async getKey(id) {
      const row = (await query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM gateway_keys WHERE id = $1`, [id]))[0];
      return row === undefined ? undefined : state(row);
    },
    async updateKey(id, update) {
      const row = await updateKeyRow(query, id, update);
      if (row === undefined) return undefined;
      log.info(
        { keyId: row.id, prefix: row.prefix, changed: Object.keys(update).filter((k) => update[k as keyof typeof update] !== undefined) },
        'key updated',
      );
      return state(row);
    },
    async rotateKey(id, graceSeconds) {
      const secret = newKeySecret();
      const row = await rotateKeyRow(query, keys, id, secret, graceSeconds, wall());
      if (row === undefined) return undefined;
      log.info({ keyId: row.id, prefix: row.prefix, graceSeconds }, 'key rotated');
      return { key: await state(row), secret };
    },
    usage: (spec) => usageReport(query, spec),
    listTeams: () => teams.list(query, periodNow()),
    setTeams: (budgets) => teams.set(budgets),
    async revokeKey(id) {
      const rows = await query<KeyRow & { was_live: boolean }>(
        `UPDATE gateway_keys SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING ${KEY_COLUMNS}, (revoked_at = $2) AS was_live`,
        [id, wall()],
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      if (row.was_live) log.info({ keyId: row.id, prefix: row.prefix }, 'key revoked');
      return state(row);
    },
    issueIdentityKey,

    async ping() {
      if (closed) throw new Error('the store is closed');
      await query('SELECT 1', []);
    },

    async close() {
      if (closed) return;
      closed = true;
      leases.stop();
      clearInterval(flushTimer);
      await Promise.race([Promise.allSettled([...background]), new Promise((resolve) => setTimeout(resolve, 1000))]);
      await flushLastUsed();
      await keys.close();
      await pool.end().catch(() => undefined);
    },
  };

  async function authorizePresented(secret: string | undefined): Promise<Pass> {
    const key = await authenticatePresented(secret);
    try {
      await takeRate(key);
    } catch (error) {
      if (error instanceof GatewayFailure && error.error.kind === 'rate_limit') return { key, refusal: error.error };
      throw error;
    }
    markUsed(key);
    return { key };
  }
}

/**
 * The database or the way to it failed (connection refused or lost, server shutting down, too
 * many connections, a pool timeout), as opposed to a statement it refused: only these are retried
 * or answered 503, and only these make on_store_error: allow fail open.
 */
export function isStoreDown(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: string }).code;
  if (typeof code === 'string') {
    if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300' || code === '40001' || code === '40P01')
      return true;
    if (/^E[A-Z]+$/.test(code)) return true; // ECONNREFUSED, ECONNRESET, ETIMEDOUT, ...
  }
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connect ECONNREFUSED|Connection ended/i.test(
    error.message,
  );
}
