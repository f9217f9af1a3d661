// `make profile` for more than one thread (issue 19): a gateway with PROFILE_WORKERS (2) data-plane
// threads, governance on with PROFILE_GOVERNANCE=sqlite, under node --cpu-prof; prints each
// thread's busy time by place and its top functions by self time. Node writes a profile for the
// main thread and the config loader; a data-plane worker is terminated at shutdown before it can
// write its own. The V8 profiler samples wall time: time blocked in a native call (an fsync inside
// a SQLite commit) counts as busy in that call.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { clientRequest } from './client-requests.ts';
import { summariseProfile } from './cpu-profile-summary.ts';
import { GATEWAY_ENV, gatewayModel, writeGatewayConfig } from './gateway-config.ts';
import { spawnServer } from './spawn-server.ts';
import { checkoutGateway } from './fleet.ts';

const root = process.cwd();
const workers = Number(process.env.PROFILE_WORKERS ?? 2);
const governance = process.env.PROFILE_GOVERNANCE === 'sqlite';
const seconds = Number(process.env.PROFILE_SECONDS ?? 8);
const connections = Number(process.env.PROFILE_CONNECTIONS ?? 32);
const dir = mkdtempSync(join(tmpdir(), 'gateway-profile-'));
const mock = await spawnServer(process.execPath, [join(root, 'bench/mock-upstream-server.ts')]);
const config = writeGatewayConfig({ dir, mockUrl: mock.url, workers, governance, paced: { chunks: 1, intervalMs: 1 } });
const [node, args] = checkoutGateway(root, ['--config', config]);
const gateway = await spawnServer(node, ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...args], GATEWAY_ENV);
let total = 0;
try {
  let key = 'bench';
  if (governance) {
    const res = await fetch(`${String(gateway.announcement.adminUrl)}/api/v1/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-token': GATEWAY_ENV.GATEWAY_ADMIN_TOKEN! },
      body: JSON.stringify({ name: 'bench', budget_cents: 1_000_000_000_000, rpm: 1_000_000 }),
    });
    key = ((await res.json()) as { secret: string }).secret;
  }
  const request = clientRequest('openai', gatewayModel('openai'), false, key);
  const options = { url: gateway.url + request.path, method: 'POST' as const, body: request.body, headers: { ...request.headers }, connections };
  await autocannon({ ...options, amount: 3000 });
  const result = await autocannon({ ...options, duration: seconds });
  total = result.requests.total + 3000;
  console.log(
    `workers ${workers} governance ${governance}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms, ${result.errors + result.non2xx} errors`,
  );
} finally {
  await gateway.stop();
  await mock.stop();
}
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .sort()) {
  const p = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string } }[];
    samples: number[];
    timeDeltas: number[];
  };
  const idle = new Set(p.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  let busy = 0;
  p.samples.forEach((id, i) => {
    if (!idle.has(id)) busy += p.timeDeltas[i] ?? 0;
  });
  console.log(`\n${file}: busy ${(busy / 1000).toFixed(0)} ms, ${(busy / total).toFixed(1)} µs per request (all requests)`);
  for (const row of summariseProfile(join(dir, file), root).slice(0, Number(process.env.PROFILE_TOP ?? 18)))
    console.log(`${row.percent.toFixed(1).padStart(6)} %  ${row.where}`);
  const frames = new Map(p.nodes.map((n) => [n.id, n.callFrame as { functionName: string; url?: string; lineNumber?: number }]));
  const self = new Map<string, number>();
  p.samples.forEach((id, i) => {
    if (idle.has(id)) return;
    const f = frames.get(id)!;
    const k = `${f.functionName || '(anon)'} ${(f.url ?? '').split('/').slice(-2).join('/')}:${f.lineNumber ?? ''}`;
    self.set(k, (self.get(k) ?? 0) + (p.timeDeltas[i] ?? 0));
  });
  console.log('  top self:');
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.PROFILE_SELF ?? 25)))
    console.log(`  ${((v / busy) * 100).toFixed(1).padStart(5)} %  ${k}`);
}
console.log(dir);
