// The facade the data plane uses: authentication by every carrier, admission in its order (rate
// limit, price, budget), revocation in force at once, last_used_at batching, the server secret,
// and spend that survives a restart and SIGKILL.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalGovernance } from '../../server/governance/governance.ts';
import { KeyDirectory } from '../../server/governance/keys.ts';
import { LastUsed } from '../../server/governance/last-used.ts';
import { openStore } from '../../server/governance/store.ts';
import { GatewayFailure, type GatewayError } from '../../server/ir/error.ts';
import { manualClock, openGovernance, tempDbPath, usage } from './support.ts';

const opened: LocalGovernance[] = [];
function track(governance: LocalGovernance): LocalGovernance {
  opened.push(governance);
  return governance;
}
afterEach(() => {
  for (const governance of opened.splice(0)) governance.close();
});

const NO_QUERY = new URLSearchParams();

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayFailure);
    return (error as GatewayFailure).error;
  }
  throw new Error('expected a refusal');
}

const priced = (worst: bigint) => ({ worstCaseMicrocents: worst, priced: true });
const settlement = (requestId: string, cost: bigint) => ({ costMicrocents: cost, usage: usage(100, 20), requestId, model: 'gpt', lane: 'openai/gpt-4.1-mini', estimated: false });

describe('authenticate', () => {
  it('finds the key by each carrier', () => {
    const governance = track(openGovernance(tempDbPath()));
    const { key, secret } = governance.createKey({ name: 'ci' });
    const carriers: [IncomingHttpHeaders, URLSearchParams][] = [
      [{ authorization: `Bearer ${secret}` }, NO_QUERY],
      [{ authorization: `bearer  ${secret}` }, NO_QUERY],
      [{ 'x-api-key': secret }, NO_QUERY],
      [{ 'x-goog-api-key': secret }, NO_QUERY],
      [{}, new URLSearchParams({ key: secret })],
      [{ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': secret }, NO_QUERY], // another scheme carries no key
    ];
    for (const [headers, query] of carriers) expect(governance.authenticate(headers, query).id).toBe(key.id);
  });

  it('takes the first carrier present, even when a later one holds a valid key', () => {
    const governance = track(openGovernance(tempDbPath()));
    const { secret } = governance.createKey({});
    expect(refusal(() => governance.authenticate({ authorization: 'Bearer gwk_wrong', 'x-api-key': secret }, NO_QUERY)).code).toBe('invalid_api_key');
    expect(refusal(() => governance.authenticate({ 'x-api-key': 'gwk_wrong' }, new URLSearchParams({ key: secret }))).code).toBe('invalid_api_key');
  });

  it('refuses a missing or unknown key with a 401 that never echoes what was presented', () => {
    const governance = track(openGovernance(tempDbPath()));
    const missing = refusal(() => governance.authenticate({}, NO_QUERY));
    expect(missing).toMatchObject({ kind: 'authentication', status: 401, code: 'missing_api_key' });
    expect(missing.message).toContain('Authorization: Bearer');
    const presented = 'gwk_thisIsNotAKeyButLooksLikeOne0123456789abcdef';
    const unknown = refusal(() => governance.authenticate({ 'x-api-key': presented }, NO_QUERY));
    expect(unknown).toMatchObject({ kind: 'authentication', status: 401, code: 'invalid_api_key' });
    expect(unknown.message).not.toContain(presented.slice(4, 12));
    expect(refusal(() => governance.authenticate({ authorization: 'Bearer ' }, NO_QUERY)).code).toBe('missing_api_key');
  });

  it('refuses a revoked key from the very next request', () => {
    const governance = track(openGovernance(tempDbPath()));
    const { key, secret } = governance.createKey({});
    const headers = { authorization: `Bearer ${secret}` };
    const record = governance.authenticate(headers, NO_QUERY);
    governance.revokeKey(key.id);
    expect(refusal(() => governance.authenticate(headers, NO_QUERY))).toMatchObject({ status: 401, code: 'key_revoked' });
    // A record taken before the revocation does not get a request admitted either.
    expect(refusal(() => governance.admit(record, priced(0n)))).toMatchObject({ status: 401, code: 'key_revoked' });
  });
});

describe('admit', () => {
  it('rate limits first: 429 rate_limited with Retry-After', () => {
    const clock = manualClock(0);
    const governance = track(openGovernance(tempDbPath(), { clock }));
    const { key } = governance.createKey({ rpm: 2 });
    governance.admit(key, priced(0n));
    clock.advance(10_000);
    governance.admit(key, priced(0n));
    const limited = refusal(() => governance.admit(key, priced(0n)));
    expect(limited).toMatchObject({ kind: 'rate_limit', status: 429, code: 'rate_limited', retryAfterSeconds: 50 });
    expect(limited.message).toContain('2 requests per minute');
  });

  it('refuses an unpriced model for a key with a budget (400 model_price_unknown), and that costs no rate', () => {
    const governance = track(openGovernance(tempDbPath()));
    const { key } = governance.createKey({ budgetMicrocents: 1_000_000n, rpm: 1 });
    const unpriced = refusal(() => governance.admit(key, { worstCaseMicrocents: 0n, priced: false, model: 'mystery' }));
    expect(unpriced).toMatchObject({ kind: 'invalid_request', status: 400, code: 'model_price_unknown' });
    expect(unpriced.message).toContain('model "mystery" has no price');
    governance.admit(key, priced(10n)); // the one request of this minute is still free
  });

  it('lets a key without a budget call an unpriced model', async () => {
    const governance = track(openGovernance(tempDbPath()));
    const { key } = governance.createKey({});
    const reservation = governance.admit(key, { worstCaseMicrocents: 0n, priced: false });
    expect(await governance.settle(reservation, settlement('free-1', 0n))).toBe(true);
  });

  it('refuses past the budget with a 402, and a refused request costs no rate', () => {
    const governance = track(openGovernance(tempDbPath()));
    const { key } = governance.createKey({ budgetMicrocents: 100n, rpm: 1 });
    expect(refusal(() => governance.admit(key, priced(101n)))).toMatchObject({ kind: 'billing', status: 402, code: 'budget_exceeded' });
    governance.admit(key, priced(100n));
  });

  it('admits exactly as many concurrent requests as the budget holds', async () => {
    const governance = track(openGovernance(tempDbPath()));
    const { key } = governance.createKey({ budgetMicrocents: 10n * 777n });
    const results = await Promise.allSettled(Array.from({ length: 300 }, async () => governance.admit(key, priced(777n))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
  });

  it('refuses an unknown key id', () => {
    const governance = track(openGovernance(tempDbPath()));
    expect(refusal(() => governance.admit({ id: 'key_nope' }, priced(0n)))).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });
});

describe('keys and spend across restarts', () => {
  it('keeps keys, spend, revocations and last use (flushed at close)', async () => {
    const path = tempDbPath();
    let wall = Date.UTC(2025, 0, 2, 3, 4, 5);
    const first = openGovernance(path, { secret: 'server-secret', wall: () => wall });
    const kept = first.createKey({ name: 'kept', owner: 'team-a', budgetMicrocents: 5_000_000n, rpm: 60 });
    const gone = first.createKey({ name: 'gone' });
    await first.settle(first.admit(kept.key, priced(2_000_000n)), settlement('r1', 1_500_000n));
    wall += 1000;
    first.markUsed(kept.key);
    first.revokeKey(gone.key.id);
    first.close();

    const second = track(openGovernance(path, { secret: 'server-secret' }));
    const record = second.authenticate({ authorization: `Bearer ${kept.secret}` }, NO_QUERY);
    expect(record).toMatchObject({ id: kept.key.id, name: 'kept', owner: 'team-a', prefix: kept.secret.slice(0, 8), budgetMicrocents: 5_000_000n, rpm: 60 });
    expect(second.getKey(kept.key.id)).toMatchObject({ spentMicrocents: 1_500_000n, reservedMicrocents: 0n, lastUsedAt: wall, createdAt: wall - 1000 });
    expect(refusal(() => second.authenticate({ 'x-api-key': gone.secret }, NO_QUERY)).code).toBe('key_revoked');
    expect(second.listKeys().map((k) => k.name)).toEqual(['kept', 'gone']);
  });

  it('keeps last_used_at in memory between flushes, and writes each key once per flush', () => {
    const store = openStore(tempDbPath());
    try {
      const keys = new KeyDirectory(store, 's');
      const a = keys.create({}, 1).record;
      const b = keys.create({}, 1).record;
      const lastUsed = new LastUsed(store);
      const written = () => store.db.prepare('SELECT id, last_used_at FROM keys ORDER BY id').all().map((row) => (row as { last_used_at: number | null }).last_used_at);
      for (let t = 10; t <= 1000; t += 10) lastUsed.mark(a.id, t);
      lastUsed.mark(b.id, 500);
      expect(lastUsed.get(a.id)).toBe(1000);
      expect(written()).toEqual([null, null]);
      const before = store.db.prepare('SELECT total_changes() AS n').get() as { n: number };
      lastUsed.flush();
      const after = store.db.prepare('SELECT total_changes() AS n').get() as { n: number };
      expect(after.n - before.n).toBe(2);
      expect(written().sort()).toEqual([1000, 500].sort());
      lastUsed.flush(); // nothing new: no write
      expect((store.db.prepare('SELECT total_changes() AS n').get() as { n: number }).n).toBe(after.n);
    } finally {
      store.close();
    }
  });

  it('never stores a secret: not in the file, not in its WAL', () => {
    const path = tempDbPath();
    const governance = openGovernance(path, { secret: 'server-secret' });
    const secrets = Array.from({ length: 5 }, () => governance.createKey({}).secret);
    const files = () => [path, `${path}-wal`].filter(existsSync).map((file) => readFileSync(file).toString('latin1'));
    for (const text of files()) for (const secret of secrets) expect(text).not.toContain(secret.slice(4));
    governance.close();
    for (const text of files()) for (const secret of secrets) expect(text).not.toContain(secret.slice(4));
  });
});

describe('the server secret', () => {
  it('without governance_secret, one is generated once and kept in the store', () => {
    const path = tempDbPath();
    const first = openGovernance(path);
    const { key, secret } = first.createKey({});
    first.close();
    const second = track(openGovernance(path));
    expect(second.authenticate({ 'x-api-key': secret }, NO_QUERY).id).toBe(key.id);
  });

  it('refuses to open with a different secret than the keys were hashed with, naming the file', () => {
    const path = tempDbPath();
    openGovernance(path, { secret: 'original' }).close();
    expect(() => openGovernance(path, { secret: 'another' })).toThrow(`${path}: its keys were hashed with a different governance secret than the one now configured`);
    expect(() => openGovernance(path)).toThrow(/different governance secret than the one now in use \(none is configured\)/);
    track(openGovernance(path, { secret: 'original' })); // and the file is still usable
  });

  it('refuses a configured secret when the keys were hashed with the generated one', () => {
    const path = tempDbPath();
    openGovernance(path).close();
    expect(() => openGovernance(path, { secret: 'configured-later' })).toThrow(/different governance secret/);
  });
});

describe('SIGKILL', () => {
  it('loses no settled spend (settle returns after the commit), nor a last use the timer flushed', async () => {
    const path = tempDbPath();
    const script = `
      const { createGovernance } = await import(process.env.GOVERNANCE_MODULE);
      const { createLogger } = await import(process.env.LOGGER_MODULE);
      const g = createGovernance({ dbPath: process.env.DB_PATH, secret: 'kill-test', clock: { now: () => performance.now() }, log: createLogger('silent'), wallClock: () => 1234, lastUsedFlushMs: 20 });
      const { key } = g.createKey({ name: 'victim', budgetMicrocents: 10n ** 12n });
      const u = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
      for (let i = 0; i < 50; i++) await g.settle(g.admit(key, { worstCaseMicrocents: 1000n, priced: true }), { costMicrocents: BigInt(i + 1), usage: u, requestId: 'req-' + i, model: 'm', lane: 'l', estimated: false });
      g.admit(key, { worstCaseMicrocents: 5000n, priced: true }); // in flight when killed: never charged
      g.markUsed(key);
      await new Promise((resolve) => setTimeout(resolve, 100)); // the flush timer writes last_used_at
      console.log('settled ' + key.id);
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: {
        ...process.env,
        DB_PATH: path,
        GOVERNANCE_MODULE: new URL('../../server/governance/governance.ts', import.meta.url).pathname,
        LOGGER_MODULE: new URL('../../server/observability/logger.ts', import.meta.url).pathname,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const keyId = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        const match = /settled (\S+)/.exec(chunk.toString());
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) => reject(new Error(`the child exited (${code}) before settling: ${stderr}`)));
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    const governance = track(openGovernance(path, { secret: 'kill-test' }));
    expect(governance.getKey(keyId)).toMatchObject({ spentMicrocents: 1275n, reservedMicrocents: 0n, lastUsedAt: 1234 }); // 1 + 2 + ... + 50
    governance.close();
    const raw = new DatabaseSync(path);
    expect(raw.prepare('SELECT count(*) AS n, sum(cost_microcents) AS total FROM spend_ledger').get()).toEqual({ n: 50, total: 1275 });
    raw.close();
  });
});
