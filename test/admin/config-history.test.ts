// The configuration history: kept in the store (across restarts) when db_path or database_url is
// set (PostgreSQL: one history for the fleet), bounded, every door recorded with its trigger; in
// memory without a store.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryConfigHistory, type ConfigHistory, type NewConfigVersion } from '../../server/config/config-history.ts';
import pg from 'pg';
import { postgresConfigHistory } from '../../server/config/postgres-config-history.ts';
import { sqliteConfigHistory } from '../../server/config/sqlite-config-history.ts';
import { migratePostgres } from '../../server/governance/postgres/postgres-schema.ts';
import { openStore, type Store } from '../../server/governance/store.ts';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres.ts';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.ts';
import { baseConfigYaml, startConfigGateway as startGateway, writeConfigDir, type ConfigGateway } from '../support/config-file-gateway.ts';

const noPostgres = postgresUnavailable();
let postgres: PostgresServer | undefined;
/** One server for the file, started by the first suite that needs it. */
const postgresDatabase = async () => {
  postgres ??= await startPostgres();
  return postgres.createDatabase();
};
afterAll(() => postgres?.stop());

const entry = (n: number, trigger: NewConfigVersion['trigger'] = 'apply'): NewConfigVersion => ({
  configVersion: `cfg_${n}`,
  appliedAt: new Date(1_700_000_000_000 + n),
  trigger,
  text: `text ${n}\n`,
});

type Made = { history: ConfigHistory; close: () => Promise<void> | void; another?: () => ConfigHistory };
describe.each([
  ['in memory', false, async (): Promise<Made> => ({ history: memoryConfigHistory(3), close: () => undefined })],
  [
    'in the SQLite store',
    false,
    async (): Promise<Made> => {
      const store: Store = openStore(':memory:');
      return { history: sqliteConfigHistory(store.db, 3), close: () => store.close() };
    },
  ],
  [
    'in the PostgreSQL store',
    true,
    async (): Promise<Made> => {
      const pool = new pg.Pool({ connectionString: await postgresDatabase(), max: 4 });
      const client = await pool.connect();
      await migratePostgres(client);
      client.release();
      // `another`: a second node of the fleet on the same database.
      return { history: postgresConfigHistory(pool, 'node-a', 3), another: () => postgresConfigHistory(pool, 'node-b', 3), close: () => pool.end() };
    },
  ],
] as const)('ConfigHistory %s', (_name, needsPostgres, make) => {
  let made: Made;
  let history: ConfigHistory;
  beforeAll(async () => {
    if (needsPostgres && noPostgres !== undefined) return;
    made = await make();
    history = made.history;
  }, 60_000);
  afterAll(async () => made?.close());
  const maybe = it.skipIf(needsPostgres && noPostgres !== undefined);

  maybe('numbers versions from 1, newest first, and keeps the last `kept` without reusing numbers', async () => {
    for (let n = 1; n <= 5; n++) expect((await history.record(entry(n))).version).toBe(n);
    expect((await history.list()).map((v) => v.version)).toEqual([5, 4, 3]);
    expect((await history.list())[0]).toEqual({ version: 5, configVersion: 'cfg_5', appliedAt: entry(5).appliedAt, trigger: 'apply' }); // no text: the list stays small
    expect(await history.get(2)).toBeUndefined();
    expect(await history.get(4)).toEqual({ version: 4, ...entry(4) });
  });

  maybe('adds nothing for the newest configuration again (a restart on the same file)', async () => {
    expect(await history.record({ ...entry(5), trigger: 'start', appliedAt: new Date() })).toEqual({ version: 5, ...entry(5) });
    expect((await history.record({ ...entry(5), text: 'text 5 with a comment\n' })).version).toBe(6);
  });

  // Only a shared store has a fleet: the memory and SQLite histories belong to one process.
  if (needsPostgres)
    maybe('is one history for the fleet: nodes starting together on one text add one version', async () => {
      const nodes = [history, made.another!(), made.another!()];
      const started = await Promise.all(nodes.map((node) => node.record({ ...entry(7), trigger: 'start' })));
      expect(started.map((v) => v.version)).toEqual([7, 7, 7]);
      const applied = await nodes[1]!.record(entry(8));
      expect(applied.version).toBe(8);
      expect(await nodes[2]!.get(8)).toEqual({ version: 8, ...entry(8) });
      expect((await history.list()).map((v) => v.version)).toEqual([8, 7, 6]);
    });
});

describe.each([
  ['db_path', 'db_path: ./gateway.db\n'],
  ['database_url', 'governance: on\ndatabase_url: { env: GATEWAY_DATABASE_URL }\n'],
])('config versions with a store (%s): every door recorded, and kept across restarts', (kind, storeYaml) => {
  let upstream: MockUpstream;
  let dir: string;
  let gw: ConfigGateway;
  let env: Record<string, string> = {};
  const texts = [1, 2, 3, 4].map((n) => baseConfigYaml(`  gpt-${n}: { provider: openai, model: gpt-4.1-nano }\n${storeYaml}`));
  const startConfigGateway = (options: Parameters<typeof startGateway>[0]) => startGateway({ ...options, env });
  if (kind === 'database_url' && noPostgres !== undefined) {
    it.skip(`needs PostgreSQL: ${noPostgres}`, () => undefined);
    return;
  }
  beforeAll(async () => {
    if (kind === 'database_url') env = { GATEWAY_DATABASE_URL: await postgresDatabase() };
    upstream = await startMockUpstream();
    dir = mkdtempSync(join(tmpdir(), 'gateway-config-history-'));
    writeConfigDir(dir, upstream, texts[0]!);
  });
  afterAll(async () => {
    await gw?.close();
    await upstream.close();
  });
  const versions = async () => (await gw.admin('GET', '/api/v1/admin/config/versions')).json;

  it("records the start, an apply, a reload and SIGHUP's reload with their triggers", async () => {
    gw = await startConfigGateway({ upstream, dir });
    expect((await gw.admin('POST', '/api/v1/admin/config/apply', texts[1])).status).toBe(200);
    writeFileSync(gw.file, texts[2]!);
    expect((await gw.admin('POST', '/api/v1/admin/config/reload')).json.version).toMatchObject({ version: 3, trigger: 'reload' });
    writeFileSync(gw.file, texts[3]!);
    // What server/main.ts does on SIGHUP.
    expect((await gw.gateway.configControl.reloadFromFile('sighup')).applied).toBe(true);
    const list = await versions();
    expect(list.stored).toBe(true);
    expect(list.data.map((v: { version: number; trigger: string }) => [v.version, v.trigger])).toEqual([
      [4, 'sighup'],
      [3, 'reload'],
      [2, 'apply'],
      [1, 'start'],
    ]);
    await gw.close();
  });

  it('a restart on the same file adds no version; the history is still there', async () => {
    gw = await startConfigGateway({ upstream, dir });
    const list = await versions();
    expect(list.data.map((v: { version: number; current: boolean }) => [v.version, v.current])).toEqual([
      [4, true],
      [3, false],
      [2, false],
      [1, false],
    ]);
    expect((await gw.admin('GET', '/api/v1/admin/config')).json.version).toBe(4);
    expect((await gw.admin('GET', '/api/v1/admin/config/versions/2')).json.yaml).toBe(texts[1]);
    await gw.close();
  });

  it('a restart on a file edited while stopped is a new version; rollback then restores the one before exactly', async () => {
    writeFileSync(join(dir, 'config.yaml'), texts[0]!);
    gw = await startConfigGateway({ upstream, dir });
    expect((await versions()).data[0]).toMatchObject({ version: 5, trigger: 'start', current: true });
    const v4 = (await gw.admin('GET', '/api/v1/admin/config/versions')).json.data[1];
    const { json } = await gw.admin('POST', '/api/v1/admin/config/rollback');
    expect(json.version).toMatchObject({ version: 6, trigger: 'rollback', config_version: v4.config_version });
    expect(readFileSync(gw.file, 'utf8')).toBe(texts[3]);
  });
});
