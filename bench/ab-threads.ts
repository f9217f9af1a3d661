// A/B of two source trees on a shared machine (issue 19): the same scenario against gateways
// started from AB_A and AB_B (directories holding server/ and its generated/, spec/, catalog/; e.g.
// `git archive <commit> server generated spec catalog package.json | tar -x -C /tmp/a` with a
// node_modules link), each at the worker counts in AB_WORKERS (1,2), and the minimal proxy (the
// floor; AB_PROXY2=1 adds it on two threads, minimal-proxy-threads.ts), in AB_REPEATS interleaved
// repeats (5) of AB_SECONDS (3) at AB_CONNECTIONS (32), AB_STREAM=1 for streams, AB_STORE off |
// sqlite | postgres, or several comma-separated (each tree at each store, interleaved in the same
// repeats: governance against off in one run); AB_B equal to AB_A measures the one tree. Prints medians (CPU µs/req of the whole process from /proc, p99, p50, req/s),
// every sample (pairs of samples share the moment's load: compare them pairwise), and CPU per
// request by thread (/proc/<pid>/task: main, WorkerThread, V8Worker = V8's helper threads).
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientRequest } from './client-requests.ts';
import { GATEWAY_ENV, gatewayModel, writeGatewayConfig } from './gateway-config.ts';
import { runLoad, warmUp, type LoadSample } from './load-runner.ts';
import { spawnServer, type SpawnedServer } from './spawn-server.ts';
import { treeGateway } from './tree-gateway.ts';
import { startPostgres } from '../test/support/postgres.ts';

const root = process.cwd();
const A = process.env.AB_A ?? root;
const B = process.env.AB_B ?? root;
const workers = (process.env.AB_WORKERS ?? '1,2').split(',').map(Number);
const stores = (process.env.AB_STORE ?? 'off').split(',');
const seconds = Number(process.env.AB_SECONDS ?? 3);
const repeats = Number(process.env.AB_REPEATS ?? 5);
const connections = Number(process.env.AB_CONNECTIONS ?? 32);
const stream = process.env.AB_STREAM === '1';
/** CPU µs by thread name (comm) of a process: names repeat, so they are summed with a count. */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const key = tid === String(pid) ? 'main' : comm;
      out.set(key, (out.get(key) ?? 0) + (Number(f[11]) + Number(f[12])) * 10_000);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}
const threads = new Map<string, Map<string, number>>();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const mock = await spawnServer(process.execPath, [join(root, 'bench/mock-upstream-server.ts')]);
const proxy = await spawnServer(process.execPath, [join(root, 'bench/minimal-proxy.ts')], { UPSTREAM: mock.url });
const pg = stores.includes('postgres') ? await startPostgres() : undefined;
const targets: { name: string; server: SpawnedServer; key: string; path: string }[] = [];
try {
  const trees: (readonly [string, string])[] =
    B === A
      ? [['A', A]]
      : [
          ['A', A],
          ['B', B],
        ];
  for (const [label, dir] of trees) {
    for (const store of stores)
      for (const w of workers) {
        const name = `${label} w${w}${stores.length > 1 ? ` ${store}` : ''}`;
        const cfgDir = mkdtempSync(join(tmpdir(), 'gateway-ab-'));
        const databaseUrl = store === 'postgres' && pg !== undefined ? await pg.createDatabase() : undefined;
        const config = writeGatewayConfig({
          dir: cfgDir,
          mockUrl: mock.url,
          workers: w,
          governance: store !== 'off',
          ...(store === 'postgres' && { databaseUrlEnv: 'GATEWAY_DATABASE_URL' }),
          paced: { chunks: 1, intervalMs: 1 },
        });
        const server = await spawnServer(...(await treeGateway(dir, ['--config', config])), {
          ...GATEWAY_ENV,
          ...(databaseUrl !== undefined && { GATEWAY_DATABASE_URL: databaseUrl }),
        });
        let key = 'bench-client-key';
        if (store !== 'off') {
          const res = await fetch(`${String(server.announcement.adminUrl)}/api/v1/admin/keys`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-admin-token': GATEWAY_ENV.GATEWAY_ADMIN_TOKEN! },
            body: JSON.stringify({ name: 'ab', budget_cents: 1_000_000_000_000, rpm: 1_000_000 }),
          });
          if (res.status !== 201) throw new Error(await res.text());
          key = ((await res.json()) as { secret: string }).secret;
        }
        targets.push({ name, server, key, path: '' });
      }
  }
  const proxyTarget = { name: 'proxy', server: proxy, key: 'bench-client-key', path: '' };
  const proxy2 =
    process.env.AB_PROXY2 === '1' ? await spawnServer(process.execPath, [join(root, 'bench/minimal-proxy-threads.ts')], { UPSTREAM: mock.url }) : undefined;
  const proxy2Target = proxy2 === undefined ? undefined : { name: 'proxy 2t', server: proxy2, key: 'bench-client-key', path: '' };
  const all = [proxyTarget, ...(proxy2Target === undefined ? [] : [proxy2Target]), ...targets];
  const req = (t: (typeof all)[number]) =>
    t === proxyTarget || t === proxy2Target
      ? clientRequest('openai', 'bench-model', stream, t.key)
      : clientRequest('openai', gatewayModel('openai'), stream, t.key);
  for (const t of all) await warmUp({ url: t.server.url, request: req(t), connections, generator: 'autocannon' }, 3000);
  const samples = new Map<string, LoadSample[]>(all.map((t) => [t.name, []]));
  for (let r = 0; r < repeats; r++) {
    for (const t of r % 2 === 0 ? all : [...all].reverse()) {
      const before = threadCpu(t.server.pid);
      const load = await runLoad({ url: t.server.url, request: req(t), connections, seconds, pid: t.server.pid, generator: 'autocannon' });
      samples.get(t.name)!.push(load);
      const after = threadCpu(t.server.pid);
      const acc = threads.get(t.name) ?? new Map<string, number>();
      for (const [k, v] of after) acc.set(k, (acc.get(k) ?? 0) + (v - (before.get(k) ?? 0)) / load.requests / repeats);
      threads.set(t.name, acc);
    }
  }
  const floor = median(samples.get('proxy')!.map((s) => s.cpuMicrosPerRequest!));
  console.log(
    `store ${stores.join(',')}, ${connections} conns, ${stream ? 'stream' : 'non-stream'}, ${repeats}x${seconds}s, load ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`,
  );
  console.log('target              cpu µs/req  x floor  p99 ms  p50 ms   req/s  errors  (cpu samples)');
  for (const t of all) {
    const xs = samples.get(t.name)!;
    const cpu = median(xs.map((s) => s.cpuMicrosPerRequest!));
    console.log(
      `${t.name.padEnd(18)} ${cpu.toFixed(0).padStart(10)} ${(cpu / floor).toFixed(2).padStart(8)} ${median(xs.map((s) => s.p99Ms))
        .toFixed(0)
        .padStart(7)} ${median(xs.map((s) => s.p50Ms))
        .toFixed(0)
        .padStart(7)} ${median(xs.map((s) => s.rps))
        .toFixed(0)
        .padStart(7)} ${xs
        .reduce((n, s) => n + s.errors, 0)
        .toString()
        .padStart(7)}  ${xs.map((s) => s.cpuMicrosPerRequest!.toFixed(0)).join(' ')}`,
    );
  }
  for (const [name, acc] of threads)
    console.log(
      `${name}: ${[...acc]
        .filter(([, v]) => v > 0.5)
        .map(([k, v]) => `${k} ${v.toFixed(0)}`)
        .join(', ')} (µs/req, mean)`,
    );
} finally {
  await Promise.all([...targets.map((t) => t.server.stop()), proxy.stop(), mock.stop()]);
  pg?.stop();
}
