// The facade the data plane uses, against both stores: the shared behaviour (governance-behaviour.ts)
// run once on the embedded SQLite file and once on a real PostgreSQL server; then what only the
// file shows: last_used_at batching, no secret in the file or its WAL, spend that survives SIGKILL.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalGovernance } from '../../server/governance/governance.ts';
import { KeyDirectory } from '../../server/governance/keys.ts';
import { LastUsed } from '../../server/governance/last-used.ts';
import { openStore } from '../../server/governance/store.ts';
import { postgresUnavailable } from '../support/postgres.ts';
import { governanceBehaviour } from './governance-behaviour.ts';
import { STORE_KINDS, storeUnderTest } from './store-under-test.ts';
import { openGovernance, tempDbPath } from './support.ts';

const opened: LocalGovernance[] = [];
function track(governance: LocalGovernance): LocalGovernance {
  opened.push(governance);
  return governance;
}
afterEach(() => {
  for (const governance of opened.splice(0)) governance.close();
});

describe.each(STORE_KINDS)('governance on the %s store', (kind) => {
  const skip = kind === 'postgres' ? postgresUnavailable() : undefined;
  if (skip !== undefined) {
    it.skip(`PostgreSQL: ${skip}`, () => undefined);
    return;
  }
  governanceBehaviour(storeUnderTest(kind));
});

describe('the embedded file', () => {
  it('keeps last_used_at in memory between flushes, and writes each key once per flush', () => {
    const store = openStore(tempDbPath());
    try {
      const keys = new KeyDirectory(store, 's');
      const a = keys.create({}, 1).record;
      const b = keys.create({}, 1).record;
      const lastUsed = new LastUsed(store);
      const written = () =>
        store.db
          .prepare('SELECT id, last_used_at FROM keys ORDER BY id')
          .all()
          .map((row) => (row as { last_used_at: number | null }).last_used_at);
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

describe('the server secret of the file', () => {
  it('names the file when the secret differs', () => {
    const path = tempDbPath();
    openGovernance(path, { secret: 'original' }).close();
    expect(() => openGovernance(path, { secret: 'another' })).toThrow(
      `${path}: its keys were hashed with a different governance secret than the one now configured`,
    );
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
      for (let i = 0; i < 50; i++) await g.settle(g.admit(key, { worstCaseMicrocents: 1000n, priced: true, worstCaseTokens: 0 }), { costMicrocents: BigInt(i + 1), usage: u, requestId: 'req-' + i, model: 'm', lane: 'l', estimated: false });
      g.admit(key, { worstCaseMicrocents: 5000n, priced: true, worstCaseTokens: 0 }); // in flight when killed: never charged
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
        LOGGER_MODULE: new URL('../../server/shared/logger.ts', import.meta.url).pathname,
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
