// The `store` section: what governance costs on each store. Three gateways with the same config
// and workers, one request (OpenAI->OpenAI, non-stream, priced) under autocannon at each connection
// count: governance off, governance on the embedded SQLite file (db_path), governance on
// PostgreSQL (database_url, a real server started here as in the tests: test/support/postgres.ts).
// The key has a budget and an rpm, so every request takes the whole path: key, rate window,
// reservation, settlement. Reported: req/s, p50 and the p50 added over governance off, the
// gateway's CPU per request and, for PostgreSQL, the database server's CPU per request (all its
// processes), which a fleet pays once however many gateways share it.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkoutGateway } from './fleet.ts';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../test/support/postgres.ts';
import { clientRequest } from './client-requests.ts';
import { GATEWAY_ENV, gatewayModel, writeGatewayConfig } from './gateway-config.ts';
import { runLoad, warmUp, type LoadSample } from './load-runner.ts';
import { processCpuMicros } from './process-cpu.ts';
import type { Settings } from './settings.ts';
import { spawnServer, type SpawnedServer } from './spawn-server.ts';
import { median } from './stats.ts';
import { cell, signed, textTable } from './text-table.ts';

type Store = 'off' | 'sqlite' | 'postgres';
const STORES: readonly Store[] = ['off', 'sqlite', 'postgres'];

export interface StoreRow {
  readonly store: Store;
  readonly connections: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly addedP50Ms: number;
  readonly gatewayCpuMicrosPerRequest: number | null;
  readonly databaseCpuMicrosPerRequest: number | null;
  readonly errors: number;
}

/** CPU of the PostgreSQL server: the postmaster and every backend it forked. */
export function postgresCpuMicros(postmaster: number): number {
  let total = processCpuMicros(postmaster);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === postmaster) total += processCpuMicros(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

export function postmasterPid(server: PostgresServer): number {
  return Number(readFileSync(join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
}

export async function runGovernanceStores(settings: Settings, mockUrl: string, log: (line: string) => void): Promise<StoreRow[]> {
  const unavailable = postgresUnavailable();
  if (unavailable !== undefined) {
    log(`store: skipped, ${unavailable}`);
    return [];
  }
  const postgres = await startPostgres();
  const databaseUrl = await postgres.createDatabase();
  const dirs: string[] = [];
  const gateways = new Map<Store, { server: SpawnedServer; apiKey: string }>();
  try {
    for (const store of STORES) {
      const dir = mkdtempSync(join(tmpdir(), `gateway-bench-store-${store}-`));
      dirs.push(dir);
      const config = writeGatewayConfig({
        dir,
        mockUrl,
        workers: 'auto',
        governance: store !== 'off',
        ...(store === 'postgres' && { databaseUrlEnv: 'GATEWAY_DATABASE_URL' }),
        paced: { chunks: settings.pacedChunks, intervalMs: settings.pacedIntervalMs },
      });
      const server = await spawnServer(...checkoutGateway(process.cwd(), ['--config', config]), {
        ...GATEWAY_ENV,
        GATEWAY_DATABASE_URL: databaseUrl,
      });
      const apiKey = store === 'off' ? 'bench-client-key' : await createBudgetedKey(String(server.announcement.adminUrl));
      gateways.set(store, { server, apiKey });
    }
    const pgPid = postmasterPid(postgres);
    const rows: StoreRow[] = [];
    for (const connections of settings.connections) {
      log(`store: ${connections} connections, governance off / sqlite / postgres x ${settings.repeats} repeats x ${settings.seconds} s`);
      const samples = new Map<Store, { load: LoadSample; dbCpu: number | null }[]>(STORES.map((s) => [s, []]));
      for (const store of STORES) {
        const g = gateways.get(store)!;
        await warmUp(
          { url: g.server.url, request: clientRequest('openai', gatewayModel('openai'), false, g.apiKey), connections, generator: settings.generator },
          settings.warmupRequests,
        );
      }
      for (let repeat = 0; repeat < settings.repeats; repeat++) {
        for (const store of STORES) {
          const g = gateways.get(store)!;
          const dbBefore = postgresCpuMicros(pgPid);
          const load = await runLoad({
            url: g.server.url,
            request: clientRequest('openai', gatewayModel('openai'), false, g.apiKey),
            connections,
            seconds: settings.seconds,
            pid: g.server.pid,
            generator: settings.generator,
          });
          const dbCpu = store === 'postgres' && load.requests > 0 ? (postgresCpuMicros(pgPid) - dbBefore) / load.requests : null;
          samples.get(store)!.push({ load, dbCpu });
        }
      }
      const offP50 = median(samples.get('off')!.map((s) => s.load.p50Ms));
      for (const store of STORES) {
        const xs = samples.get(store)!;
        const p50Ms = median(xs.map((s) => s.load.p50Ms));
        const cpu = xs.map((s) => s.load.cpuMicrosPerRequest).filter((x): x is number => x !== null);
        const db = xs.map((s) => s.dbCpu).filter((x): x is number => x !== null);
        rows.push({
          store,
          connections,
          rps: median(xs.map((s) => s.load.rps)),
          p50Ms,
          addedP50Ms: p50Ms - offP50,
          gatewayCpuMicrosPerRequest: cpu.length === 0 ? null : median(cpu),
          databaseCpuMicrosPerRequest: db.length === 0 ? null : median(db),
          errors: xs.reduce((a, s) => a + s.load.errors, 0),
        });
      }
    }
    return rows;
  } finally {
    await Promise.all([...gateways.values()].map((g) => g.server.stop()));
    postgres.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

export function formatStoreRows(rows: readonly StoreRow[]): string {
  const label: Record<Store, string> = { off: 'governance off', sqlite: 'governance on SQLite (db_path)', postgres: 'governance on PostgreSQL (database_url)' };
  return textTable(
    ['store', 'conns', 'req/s', 'p50 ms', 'added p50 ms', 'gateway CPU µs/req', 'database CPU µs/req', 'errors'],
    rows.map((r) => [
      label[r.store],
      String(r.connections),
      cell(r.rps),
      cell(r.p50Ms, 1),
      r.store === 'off' ? '-' : signed(r.addedP50Ms, 1),
      cell(r.gatewayCpuMicrosPerRequest),
      cell(r.databaseCpuMicrosPerRequest),
      String(r.errors),
    ]),
  );
}

/** A key with a budget and an rpm, neither ever reached, so every request is metered in full. */
async function createBudgetedKey(adminUrl: string): Promise<string> {
  const res = await fetch(`${adminUrl}/api/v1/admin/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-admin-token': GATEWAY_ENV.GATEWAY_ADMIN_TOKEN! },
    body: JSON.stringify({ name: 'bench-store', budget_cents: 1_000_000_000_000, rpm: 1_000_000 }),
  });
  if (res.status !== 201) throw new Error(`creating a virtual key: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { secret: string }).secret;
}
