// The `reload` section: a gateway process serving a large configuration (200 models, 50 pools) is
// sent SIGHUP again and again, the file alternating between two versions (pool weights and prices
// changed), while keep-alive clients ask the pools at a steady rate (open loop). It measures how long a reload takes to
// apply (the gateway's own log line: load and check, then the switch of every thread) and the
// latency of every request before, during and after the reloads, side by side with how busy the
// machine was (reload-report.ts): the target is no request over 50 ms during the reloads.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkoutGateway } from './fleet.ts';
import { createInterface } from 'node:readline';
import { Agent, request } from 'undici';
import { GATEWAY_ENV } from './gateway-config.ts';
import { spawnServer } from './spawn-server.ts';
import type { Settings } from './settings.ts';
import { phaseCpu, readCpu, readThreadCpu, threadCpuBetween, type PhaseCpu, type ThreadCpu } from './machine-cpu.ts';
import { latencySummary, RELOAD_STALL_TARGET_MS, type ReloadRun, type SlowRequest } from './reload-report.ts';

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
/**
 * After each read of /metrics, requests are left out of every phase this long: the read renders
 * about a thousand series on the main thread (10 to 20 ms there), which is the instrument's cost,
 * not the reload's. (It used to be read every 200 ms, which put that block into every phase.)
 */
const SCRAPE_GAP_MS = 300;

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

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export async function runReloadBench(root: string, settings: Settings, log: (line: string) => void): Promise<ReloadRun> {
  const reloads = settings.quick ? 5 : 20;
  const baselineMs = settings.quick ? 2000 : 5000;
  const dir = mkdtempSync(join(tmpdir(), 'bench-reload-'));
  const mock = await spawnServer(process.execPath, [join(root, 'bench/mock-upstream-server.ts')]);
  writeFileSync(join(dir, 'providers.yaml'), `openai: { base_url: ${mock.url}/v1 }\n`);
  const file = join(dir, 'config.yaml');
  writeFileSync(file, configText(0));
  const [command, args] = settings.gatewayCommand === undefined ? checkoutGateway(root, []) : [settings.gatewayCommand, []];
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

    type Phase = 'before' | 'during' | 'after';
    let phase: 'warmup' | 'gap' | Phase | 'done' = 'warmup';
    // Read through a call: the phase moves on while requests and scrapes are awaited.
    const now = (): string => phase;
    const measured = (at: string): at is Phase => at === 'before' || at === 'during' || at === 'after';
    const latencies: Record<Phase, number[]> = { before: [], during: [], after: [] };
    const errors: Record<Phase, number> = { before: 0, during: 0, after: 0 };
    // When each SIGHUP was sent (bench clock), to place the slow requests during the reloads.
    const sighups: number[] = [];
    const slowDuring: SlowRequest[] = [];
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
          if (!measured(at)) continue;
          const latency = performance.now() - t0;
          latencies[at].push(latency);
          if (at === 'during' && latency > RELOAD_STALL_TARGET_MS) {
            // The latest SIGHUP before the answer came: negative when the request was due before it.
            const reload = sighups.filter((s) => s <= performance.now()).length;
            slowDuring.push({ reload, dueAfterSighupMs: Math.round(t0 - (sighups[reload - 1] ?? t0)), latencyMs: Math.round(latency) });
          }
        } catch {
          if (measured(at)) errors[at]++;
        }
      }
    };
    const clients = Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
    // The main thread's longest event-loop delay since the last read (read resets it), then a gap.
    const loopLagMs = async (): Promise<number> => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return 1000 * Number(/^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1] ?? 0);
    };
    const pids = [gateway.pid!, mock.pid, process.pid];
    const phases: Partial<Record<Phase, { lag: number; cpu: PhaseCpu; threads: ThreadCpu; seconds: number }>> = {};
    const measure = async (name: Phase, run: () => Promise<void>) => {
      phase = name;
      const cpu = readCpu(pids);
      const threads = readThreadCpu(gateway.pid!);
      await run();
      const cpuEnd = readCpu(pids);
      const threadsEnd = readThreadCpu(gateway.pid!);
      phase = 'gap';
      phases[name] = {
        lag: await loopLagMs(),
        cpu: phaseCpu(cpu, cpuEnd),
        threads: threadCpuBetween(threads, threadsEnd),
        seconds: (cpuEnd.at - cpu.at) / 1000,
      };
      await sleep(SCRAPE_GAP_MS);
    };
    // Warm-up: every pool's lanes open their upstream connections and the code paths are compiled.
    await sleep(3000);
    phase = 'gap';
    await loopLagMs();
    await sleep(SCRAPE_GAP_MS);
    await measure('before', () => sleep(baselineMs));
    const applied: { ms: number; switchMs: number; mainThreadCpuMs: number; workerCpuMs: number }[] = [];
    await measure('during', async () => {
      for (let r = 1; r <= reloads; r++) {
        writeFileSync(file, configText((r % 2) as 0 | 1));
        const seen = lines.length;
        sighups.push(performance.now());
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
    });
    await measure('after', () => sleep(baselineMs));
    phase = 'done';
    await clients;
    const stats = (values: readonly number[]) => ({ median: median(values), max: Math.max(...values) });
    const summary = (name: Phase) => {
      const p = phases[name]!;
      return latencySummary(latencies[name], errors[name], { mainLoopLagMaxMs: p.lag, cpu: p.cpu, threads: p.threads, seconds: p.seconds });
    };
    return {
      models: RELOAD_MODELS,
      pools: RELOAD_POOLS,
      workers,
      reloads,
      applyMs: stats(applied.map((a) => a.ms)),
      switchMs: stats(applied.map((a) => a.switchMs)),
      mainThreadCpuMs: stats(applied.map((a) => a.mainThreadCpuMs)),
      workerCpuMs: stats(applied.map((a) => a.workerCpuMs)),
      before: summary('before'),
      during: summary('during'),
      after: summary('after'),
      slowDuring,
    };
  } finally {
    await agent.close();
    gateway.kill('SIGTERM');
    await new Promise((resolve) => gateway.once('exit', resolve));
    await mock.stop();
    rmSync(dir, { recursive: true, force: true });
  }
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
