// The `reload` section: a gateway process serving a large configuration (200 models, 50 pools) is
// sent SIGHUP again and again, the file alternating between two versions (pool weights and prices
// changed), while keep-alive clients ask the pools at a steady rate (open loop). It measures how long a reload takes to
// apply (the gateway's own log line: load and check, then the switch of every thread) and the
// latency of every request before and during the reloads: the target is no request over 50 ms.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { GATEWAY_ENV } from './gateway-config.ts';
import { spawnServer } from './spawn-server.ts';
import type { Settings } from './settings.ts';

export const RELOAD_MODELS = 200;
export const RELOAD_POOLS = 50;
const POOL_MEMBERS = 4;
const CLIENTS = 8;
/**
 * Requests per second, sent on a schedule (open loop) rather than as fast as answers come back: a
 * closed loop saturates both cores with the load generator itself, and then any extra CPU (the
 * loader thread parsing the candidate) shows up as queueing behind it, which is not a stall a
 * production gateway, run below saturation, would see. About a quarter of what this gateway
 * serves flat out on the 2-core bench machine.
 */
const RATE_PER_SECOND = 400;
/** The stall the target allows: no request slower than this while reloads happen. */
export const RELOAD_STALL_TARGET_MS = 50;

export interface LatencySummary {
  readonly requests: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly over50: number;
  readonly errors: number;
}

export interface ReloadRun {
  readonly models: number;
  readonly pools: number;
  readonly workers: number;
  readonly reloads: number;
  /** From the gateway's log line: SIGHUP to applied (load, check, switch), and the switch alone. */
  readonly applyMs: { readonly median: number; readonly max: number };
  readonly switchMs: { readonly median: number; readonly max: number };
  /** CPU time the reload took on the serving threads (main; the slowest worker), whatever else the machine ran. */
  readonly mainThreadCpuMs: { readonly median: number; readonly max: number };
  readonly workerCpuMs: { readonly median: number; readonly max: number };
  readonly before: LatencySummary;
  readonly during: LatencySummary;
  /**
   * The main thread's longest event-loop delay (prom-client's nodejs_eventloop_lag_max_seconds,
   * read every 200 ms), before and during the reloads: what the reload's own work on that thread
   * costs, apart from the machine's noise in the request latencies.
   */
  readonly mainLoopLagMaxMs: { readonly before: number; readonly during: number };
}

/** One of the two versions the file alternates between: weights and prices differ. */
function configText(version: 0 | 1): string {
  const lines = [
    'listen: 127.0.0.1:0',
    'admin_listen: 127.0.0.1:0',
    'catalog: ./providers.yaml',
    'log_level: info',
    'workers: auto',
    'providers:',
    '  openai: { api_key: { env: BENCH_UPSTREAM_KEY } }',
    'models:',
  ];
  for (let i = 0; i < RELOAD_MODELS; i++)
    lines.push(`  m${i}: { provider: openai, model: bench-model-${i}, price: { input: ${1 + version}, output: ${2 + version} } }`);
  lines.push('pools:');
  for (let p = 0; p < RELOAD_POOLS; p++) {
    const members = Array.from(
      { length: POOL_MEMBERS },
      (_, k) => `{ model: m${(p * POOL_MEMBERS + k) % RELOAD_MODELS}, weight: ${1 + ((k + version) % POOL_MEMBERS)} }`,
    );
    lines.push(`  pool${p}: { members: [ ${members.join(', ')} ] }`);
  }
  return lines.join('\n') + '\n';
}

function summary(latencies: readonly number[], errors: number): LatencySummary {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return {
    requests: sorted.length,
    p50: at(0.5),
    p99: at(0.99),
    max: round(sorted[sorted.length - 1] ?? 0),
    over50: sorted.filter((l) => l > RELOAD_STALL_TARGET_MS).length,
    errors,
  };
}

const round = (ms: number) => Math.round(ms * 100) / 100;
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export async function runReloadBench(root: string, settings: Settings, log: (line: string) => void): Promise<ReloadRun> {
  const reloads = settings.quick ? 5 : 20;
  const baselineMs = settings.quick ? 2000 : 5000;
  const dir = mkdtempSync(join(tmpdir(), 'bench-reload-'));
  const mock = await spawnServer(process.execPath, [join(root, 'bench/mock-upstream-server.ts')]);
  writeFileSync(join(dir, 'providers.yaml'), `openai: { base_url: ${mock.url}/v1 }\n`);
  const file = join(dir, 'config.yaml');
  writeFileSync(file, configText(0));
  const [command, args] = settings.gatewayCommand === undefined ? [process.execPath, [join(root, 'server/main.ts')]] : [settings.gatewayCommand, []];
  const gateway = spawn(command, [...args, '--config', file], { env: { ...process.env, ...GATEWAY_ENV }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Record<string, unknown>[] = [];
  const reader = createInterface({ input: gateway.stdout });
  reader.on('line', (line) => {
    try {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if (parsed.msg !== 'request') lines.push(parsed);
    } catch {
      // not a JSON line
    }
  });
  const agent = new Agent({ keepAliveTimeout: 60_000, connections: CLIENTS });
  try {
    await waitFor('the gateway to start', () => lines.some((l) => l.msg === 'gateway started'), 30_000);
    const started = lines.find((l) => l.msg === 'gateway started')!;
    const url = started.dataUrl as string;
    const workers = started.workers as number;
    log(
      `reload: ${RELOAD_MODELS} models, ${RELOAD_POOLS} pools, ${workers} workers; ${CLIENTS} keep-alive clients at ${RATE_PER_SECOND} req/s; ${reloads} reloads`,
    );

    let phase: 'warmup' | 'before' | 'during' | 'done' = 'warmup';
    // Read through a call: the phase moves on while requests and scrapes are awaited.
    const now = (): string => phase;
    const latencies = { before: [] as number[], during: [] as number[] };
    const errors = { before: 0, during: 0 };
    // Each client sends on its own schedule; latency counts from the moment a request was due, so a
    // request held up behind a slow one is measured with its wait (no coordinated omission).
    const intervalMs = (1000 * CLIENTS) / RATE_PER_SECOND;
    const client = async (n: number) => {
      let due = performance.now() + (n * intervalMs) / CLIENTS;
      for (let i = n; now() !== 'done'; i += CLIENTS, due += intervalMs) {
        const body = JSON.stringify({ model: `pool${i % RELOAD_POOLS}`, messages: [{ role: 'user', content: 'hi' }] });
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        const at = now();
        const t0 = due;
        try {
          const res = await request(`${url}/v1/chat/completions`, {
            method: 'POST',
            body,
            headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
            dispatcher: agent,
          });
          await res.body.arrayBuffer();
          if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
          if (at === 'before' || at === 'during') latencies[at].push(performance.now() - t0);
        } catch {
          if (at === 'before' || at === 'during') errors[at]++;
        }
      }
    };
    const clients = Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
    const lag = { before: 0, during: 0 };
    const scraper = (async () => {
      while (now() !== 'done') {
        const at = now();
        const text = await (await fetch(`${url}/metrics`)).text();
        const seconds = Number(/^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1] ?? 0);
        if ((at === 'before' || at === 'during') && at === now()) lag[at] = Math.max(lag[at], seconds * 1000);
        await sleep(200);
      }
    })();
    // Warm-up: every pool's lanes open their upstream connections and the code paths are compiled.
    await sleep(3000);
    phase = 'before';
    await sleep(baselineMs);
    phase = 'during';
    const applied: { ms: number; switchMs: number; mainThreadCpuMs: number; workerCpuMs: number }[] = [];
    for (let r = 1; r <= reloads; r++) {
      writeFileSync(file, configText((r % 2) as 0 | 1));
      const seen = lines.length;
      gateway.kill('SIGHUP');
      await waitFor('the reload', () => lines.slice(seen).some((l) => typeof l.msg === 'string' && l.msg.startsWith('SIGHUP')), 30_000);
      const line = lines.slice(seen).find((l) => typeof l.msg === 'string' && l.msg.startsWith('SIGHUP'))!;
      if (line.level !== 30 || typeof line.ms !== 'number') throw new Error(`reload ${r} was not applied: ${String(line.msg)}`);
      applied.push({
        ms: line.ms,
        switchMs: line.switchMs as number,
        mainThreadCpuMs: line.mainThreadCpuMs as number,
        workerCpuMs: line.workerCpuMs as number,
      });
      await sleep(250);
    }
    phase = 'done';
    await Promise.all([clients, scraper]);
    return {
      models: RELOAD_MODELS,
      pools: RELOAD_POOLS,
      workers,
      reloads,
      applyMs: { median: median(applied.map((a) => a.ms)), max: Math.max(...applied.map((a) => a.ms)) },
      switchMs: { median: median(applied.map((a) => a.switchMs)), max: Math.max(...applied.map((a) => a.switchMs)) },
      mainThreadCpuMs: { median: median(applied.map((a) => a.mainThreadCpuMs)), max: Math.max(...applied.map((a) => a.mainThreadCpuMs)) },
      workerCpuMs: { median: median(applied.map((a) => a.workerCpuMs)), max: Math.max(...applied.map((a) => a.workerCpuMs)) },
      before: summary(latencies.before, errors.before),
      during: summary(latencies.during, errors.during),
      mainLoopLagMaxMs: { before: round(lag.before), during: round(lag.during) },
    };
  } finally {
    await agent.close();
    gateway.kill('SIGTERM');
    await new Promise((resolve) => gateway.once('exit', resolve));
    await mock.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The section's table and its target line. */
export function formatReload(run: ReloadRun): string {
  const row = (name: string, s: LatencySummary) =>
    `  ${name.padEnd(16)} ${String(s.requests).padStart(8)} ${s.p50.toFixed(2).padStart(8)} ${s.p99.toFixed(2).padStart(8)} ${s.max.toFixed(2).padStart(8)} ${String(s.over50).padStart(8)} ${String(s.errors).padStart(7)}`;
  const pass = run.during.over50 === 0 && run.during.errors === 0;
  return [
    `reload: ${run.models} models, ${run.pools} pools, ${run.workers} workers, ${run.reloads} SIGHUP reloads`,
    `  time to apply (load, check, switch): median ${run.applyMs.median} ms, max ${run.applyMs.max} ms; of which the switch of every thread: median ${run.switchMs.median} ms, max ${run.switchMs.max} ms`,
    `  CPU the reload took on the serving threads: main thread median ${run.mainThreadCpuMs.median} ms, max ${run.mainThreadCpuMs.max} ms; a worker thread median ${run.workerCpuMs.median} ms, max ${run.workerCpuMs.max} ms`,
    `  request latency (ms)  requests      p50      p99      max    >50ms  errors`,
    row('before reloads', run.before),
    row('during reloads', run.during),
    `  the main thread's longest event-loop delay: ${run.mainLoopLagMaxMs.before} ms before the reloads, ${run.mainLoopLagMaxMs.during} ms during them`,
    `${pass ? 'PASS' : 'FAIL'} reload: no request over ${RELOAD_STALL_TARGET_MS} ms and none failed during reloads (max ${run.during.max} ms, ${run.during.over50} over, ${run.during.errors} errors)`,
  ].join('\n');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}
