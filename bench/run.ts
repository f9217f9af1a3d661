// `make bench`: the gateway against a zero-delay mock upstream, with two baselines measured in the
// same run: the client talking to the mock directly, and a minimal Node keep-alive proxy.
// Loopback only; every load loop is bounded in time. Not a test: it reports, it does not judge.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { processCpuMicros, processRssMiB } from './process-cpu.ts';
import { spawnServer, type SpawnedServer } from './spawn-server.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 3);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? '1,32').split(',').map(Number);
const root = fileURLToPath(new URL('..', import.meta.url));

const openaiBody = (model: string, stream: boolean) => JSON.stringify({
  model, stream, ...(stream && { stream_options: { include_usage: true } }),
  messages: [{ role: 'system', content: 'You are a benchmark.' }, { role: 'user', content: 'Say something about foxes and dogs.' }],
});
const anthropicBody = (model: string, stream: boolean) => JSON.stringify({
  model, stream, max_tokens: 256, system: 'You are a benchmark.', messages: [{ role: 'user', content: 'Say something about foxes and dogs.' }],
});

interface Scenario {
  readonly name: string;
  readonly target: 'direct' | 'proxy' | 'gateway';
  readonly path: string;
  readonly body: string;
}

const ALL_SCENARIOS: Scenario[] = [
  { name: 'direct openai', target: 'direct', path: '/v1/chat/completions', body: openaiBody('bench-model', false) },
  { name: 'minimal proxy openai', target: 'proxy', path: '/v1/chat/completions', body: openaiBody('bench-model', false) },
  { name: 'gateway openai->openai', target: 'gateway', path: '/v1/chat/completions', body: openaiBody('gpt', false) },
  { name: 'gateway openai->anthropic', target: 'gateway', path: '/v1/chat/completions', body: openaiBody('claude', false) },
  { name: 'gateway anthropic->openai', target: 'gateway', path: '/v1/messages', body: anthropicBody('gpt', false) },
  { name: 'direct openai stream', target: 'direct', path: '/v1/chat/completions', body: openaiBody('bench-model', true) },
  { name: 'minimal proxy openai stream', target: 'proxy', path: '/v1/chat/completions', body: openaiBody('bench-model', true) },
  { name: 'gateway openai->openai stream', target: 'gateway', path: '/v1/chat/completions', body: openaiBody('gpt', true) },
  { name: 'gateway openai->anthropic stream', target: 'gateway', path: '/v1/chat/completions', body: openaiBody('claude', true) },
  { name: 'gateway anthropic->openai stream', target: 'gateway', path: '/v1/messages', body: anthropicBody('gpt', true) },
];

/** BENCH_FILTER=stream keeps the scenarios whose name contains it (baselines are always kept). */
const FILTER = process.env.BENCH_FILTER;
const SCENARIOS = ALL_SCENARIOS.filter((s) => FILTER === undefined || s.target !== 'gateway' || s.name.includes(FILTER));

interface Sample { rps: number; p50: number; p99: number; cpuPerRequest: number | null; errors: number }

async function load(url: string, scenario: Scenario, connections: number, pid: number | undefined): Promise<Sample> {
  const cpuBefore = pid === undefined ? 0 : processCpuMicros(pid);
  const result = await autocannon({
    url: url + scenario.path, method: 'POST', connections, duration: SECONDS, body: scenario.body,
    headers: { 'content-type': 'application/json', authorization: 'Bearer bench', 'anthropic-version': '2023-06-01' },
  });
  const cpu = pid === undefined ? null : (processCpuMicros(pid) - cpuBefore) / Math.max(1, result.requests.total);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuPerRequest: cpu, errors: result.errors + result.non2xx };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function main(): Promise<void> {
  const mock = await spawnServer([join(root, 'bench/mock-upstream-server.ts')]);
  const proxy = await spawnServer([join(root, 'bench/minimal-proxy.ts')], { UPSTREAM: mock.url });
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  writeFileSync(join(dir, 'providers.yaml'), `openai: { base_url: ${mock.url}/v1 }\nanthropic: { base_url: ${mock.url} }\n`);
  writeFileSync(join(dir, 'config.yaml'), `listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\ncatalog: ./providers.yaml\nlog_level: info
providers: { openai: { api_key: { env: BENCH_KEY } }, anthropic: { api_key: { env: BENCH_KEY } } }
models:
  gpt: { provider: openai, model: bench-model }
  claude: { provider: anthropic, model: bench-model }
`);
  const gateway = await spawnServer([join(root, 'server/main.ts'), '--config', join(dir, 'config.yaml')], { BENCH_KEY: 'bench-upstream-key' });
  const rssIdle = processRssMiB(gateway.pid);
  const servers: Record<Scenario['target'], SpawnedServer> = { direct: mock, proxy, gateway };
  const pidOf = (s: Scenario) => (s.target === 'direct' ? undefined : servers[s.target].pid);

  const rows: Record<string, unknown>[] = [];
  let rssPeak = rssIdle;
  try {
    for (const connections of CONNECTIONS) {
      // Warm up every target once so JIT and connection pools are hot before measuring.
      for (const s of SCENARIOS) await autocannon({ url: servers[s.target].url + s.path, method: 'POST', connections, amount: 200, body: s.body, headers: { 'content-type': 'application/json' } });
      const samples = new Map<string, Sample[]>();
      for (let r = 0; r < REPEATS; r++) {
        for (const s of SCENARIOS) { // interleaved: each repeat visits every scenario, so drift hits all alike
          const sample = await load(servers[s.target].url, s, connections, pidOf(s));
          samples.set(s.name, [...(samples.get(s.name) ?? []), sample]);
          rssPeak = Math.max(rssPeak, processRssMiB(gateway.pid));
        }
      }
      for (const s of SCENARIOS) {
        const xs = samples.get(s.name) ?? [];
        const cpu = xs.map((x) => x.cpuPerRequest).filter((x): x is number => x !== null);
        rows.push({
          scenario: s.name, connections,
          rps: Math.round(median(xs.map((x) => x.rps))),
          p50_ms: median(xs.map((x) => x.p50)), p99_ms: median(xs.map((x) => x.p99)),
          cpu_us_per_req: cpu.length ? Math.round(median(cpu)) : null,
          errors: xs.reduce((a, x) => a + x.errors, 0),
        });
      }
    }
  } finally {
    const rssAfter = processRssMiB(gateway.pid);
    gateway.stop(); proxy.stop(); mock.stop();
    addRatios(rows);
    console.table(rows);
    const memory = { rss_idle_mib: round1(rssIdle), rss_peak_mib: round1(rssPeak), rss_after_mib: round1(rssAfter) };
    console.log('gateway memory:', memory);
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    const out = join(root, 'bench/results/latest.json');
    writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), seconds: SECONDS, repeats: REPEATS, node: process.versions.node, rows, memory }, null, 2));
    console.log(`written ${out}`);
  }
}

/** Ratios to the baselines measured in the same run: CPU per request against the minimal proxy's. */
function addRatios(rows: Record<string, unknown>[]): void {
  for (const row of rows) {
    const stream = String(row.scenario).endsWith('stream');
    const proxy = rows.find((r) => r.connections === row.connections && r.scenario === `minimal proxy openai${stream ? ' stream' : ''}`);
    const direct = rows.find((r) => r.connections === row.connections && r.scenario === `direct openai${stream ? ' stream' : ''}`);
    row.cpu_vs_proxy = typeof row.cpu_us_per_req === 'number' && typeof proxy?.cpu_us_per_req === 'number' ? round2(row.cpu_us_per_req / proxy.cpu_us_per_req) : null;
    row.added_p50_ms = typeof direct?.p50_ms === 'number' ? round2((row.p50_ms as number) - direct.p50_ms) : null;
  }
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;

await main();
