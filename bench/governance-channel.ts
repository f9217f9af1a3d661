// What governance costs a worker's requests, without HTTP (issue 19): the owner (createGovernance
// on a SQLite file in a temp dir, synchronous = FULL as in production) on this thread, and a
// data-plane worker's GovernanceProxy on a worker thread making each request's three calls
// (authorize, reserve, settle) for GC_REQUESTS requests, GC_CONCURRENCY (32) at a time. Prints the
// CPU per request of each thread (process.threadCpuUsage), of the whole process (every thread: the
// ledger writer's and V8's helpers too) and the rate. GC_TREES=/tmp/a,/tmp/b
// (source trees as for ab.ts; default this one) are measured in GC_REPEATS (5) interleaved repeats.
// GC_UPSTREAM_MS: each request waits this long between its reservation and its settlement (its
// upstream's answer), so that requests settle spread out as a gateway's do (0: at once).
// GC_STORE=postgres: the owner on a PostgreSQL server started for the run (test/support/postgres.ts),
// whose CPU per request is printed too. GC_RPM=0: the key has no rpm (no rate window to keep). `node bench/governance-channel.ts`
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres } from '../test/support/postgres.ts';
import { postgresCpuMicros, postmasterPid } from './governance-store.ts';
import { isMainThread, MessageChannel, type MessagePort, parentPort, Worker, workerData } from 'node:worker_threads';

interface Start {
  readonly tree: string;
  readonly port: MessagePort;
  readonly secret: string;
  readonly requests: number;
  readonly concurrency: number;
  readonly upstreamMs: number;
}

const headers = (secret: string) => ({ authorization: `Bearer ${secret}` });

if (isMainThread) {
  const trees = (process.env.GC_TREES ?? process.cwd()).split(',');
  const requests = Number(process.env.GC_REQUESTS ?? 20_000);
  const concurrency = Number(process.env.GC_CONCURRENCY ?? 32);
  const repeats = Number(process.env.GC_REPEATS ?? 5);
  const upstreamMs = Number(process.env.GC_UPSTREAM_MS ?? 0);
  const postgres = process.env.GC_STORE === 'postgres' ? await startPostgres() : undefined;
  const results = new Map<string, { main: number[]; worker: number[]; rate: number[]; database: number[]; process: number[]; commits: number[] }>(
    trees.map((t) => [t, { main: [], worker: [], rate: [], database: [], process: [], commits: [] }]),
  );
  for (let r = 0; r < repeats; r++) {
    for (const tree of r % 2 === 0 ? trees : [...trees].reverse()) {
      const { createGovernance } = (await import(join(tree, 'server/governance/governance.ts'))) as typeof import('../server/governance/governance.ts');
      const { serveGovernance } = (await import(
        join(tree, 'server/governance/governance-channel.ts')
      )) as typeof import('../server/governance/governance-channel.ts');
      const log = { warn() {}, info() {}, error() {}, debug() {} } as never;
      const pg =
        postgres === undefined
          ? undefined
          : ((await import(
              join(tree, 'server/governance/postgres/postgres-governance.ts')
            )) as typeof import('../server/governance/postgres/postgres-governance.ts'));
      const governance =
        postgres === undefined || pg === undefined
          ? createGovernance({
              dbPath: join(mkdtempSync(join(tmpdir(), 'gateway-gc-')), 'gateway.db'),
              secret: 'bench-governance-secret',
              clock: { now: () => performance.now() },
              log,
            })
          : await pg.createPostgresGovernance({
              url: await postgres.createDatabase(),
              secret: 'bench-governance-secret',
              log,
              onStoreError: 'deny',
              leaseMs: 60_000,
            });
      const { secret } = await governance.createKey({ name: 'bench', budgetMicrocents: 10n ** 15n, ...(process.env.GC_RPM !== '0' && { rpm: 1_000_000 }) });
      // SQLite: its write transactions counted (the settlements' group commits, one fsync each).
      let commits = 0;
      if ('store' in governance) {
        const store = governance.store;
        const transaction = store.transaction.bind(store);
        store.transaction = (work) => {
          commits++;
          return transaction(work);
        };
      }
      const database0 = postgres === undefined ? 0 : postgresCpuMicros(postmasterPid(postgres));
      const { port1, port2 } = new MessageChannel();
      serveGovernance(port1, governance);
      const worker = new Worker(new URL(import.meta.url), {
        workerData: { tree, port: port2, secret, requests, concurrency, upstreamMs } satisfies Start,
        transferList: [port2],
      });
      // The worker's start (loading the tree) is not counted: it says when it is ready, then runs.
      await new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      worker.postMessage('go');
      const started = process.threadCpuUsage();
      const process0 = process.cpuUsage();
      const t0 = performance.now();
      const workerCpu = await new Promise<number>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      const ms = performance.now() - t0;
      const main = process.threadCpuUsage(started);
      const all = process.cpuUsage(process0);
      const database = postgres === undefined ? 0 : postgresCpuMicros(postmasterPid(postgres)) - database0;
      await worker.terminate();
      port1.close();
      await governance.close();
      const row = results.get(tree)!;
      row.database.push(database / requests);
      row.main.push((main.user + main.system) / requests);
      row.worker.push(workerCpu / requests);
      row.rate.push(requests / (ms / 1000));
      row.process.push((all.user + all.system) / requests);
      row.commits.push(commits);
    }
  }
  postgres?.stop();
  postgres?.stop();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`${requests} requests, ${concurrency} at a time, ${repeats} repeats (medians; CPU µs per request by thread)`);
  for (const [tree, row] of results)
    console.log(
      `${tree}: main ${median(row.main).toFixed(1)}  worker ${median(row.worker).toFixed(1)}  both ${median(row.main.map((m, i) => m + row.worker[i]!)).toFixed(1)}  process ${median(row.process).toFixed(1)}  ${median(row.rate).toFixed(0)} req/s${postgres === undefined ? `  ${(requests / median(row.commits)).toFixed(1)} settlements a commit` : `  database ${median(row.database).toFixed(1)}`}  (main ${row.main.map((x) => x.toFixed(0)).join(' ')}; worker ${row.worker.map((x) => x.toFixed(0)).join(' ')})`,
    );
} else {
  const start = workerData as Start;
  const { GovernanceProxy } = (await import(
    join(start.tree, 'server/governance/governance-channel.ts')
  )) as typeof import('../server/governance/governance-channel.ts');
  const proxy = new GovernanceProxy(start.port);
  const query = new URLSearchParams();
  let next = 0;
  const usage = { inputTokens: 120, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
  const one = async (n: number) => {
    const pass = await proxy.authorize(headers(start.secret), query);
    const reservation = await proxy.reserve(pass.key, { worstCaseMicrocents: 5_000_000n, priced: true, model: 'to-openai', worstCaseTokens: 4216 });
    if (start.upstreamMs > 0) await new Promise((resolve) => setTimeout(resolve, start.upstreamMs));
    await proxy.settle(reservation, { costMicrocents: 1800n, usage, requestId: `req_${n}`, model: 'bench-model', lane: 'to-openai', estimated: false });
  };
  const loop = async () => {
    while (next < start.requests) await one(next++);
  };
  parentPort!.postMessage('ready');
  await new Promise((resolve) => parentPort!.once('message', resolve));
  const cpu0 = process.threadCpuUsage();
  await Promise.all(Array.from({ length: start.concurrency }, loop));
  const cpu = process.threadCpuUsage(cpu0);
  parentPort!.postMessage(cpu.user + cpu.system);
}
