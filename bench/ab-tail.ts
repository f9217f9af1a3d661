// A/B of two gateway trees for the tail: CPU per request, p99 and what the garbage collector does,
// in one run beside the floor. wrk drives each target (µs latencies); each gateway runs `workers: 1`
// (the main thread serves, so V8's --trace-gc-nvp lines on its stdout are the serving thread's)
// with the shipped heap flags, and every sample reports, for its window: scavenges per 1,000
// requests, bytes promoted per scavenge (what outlived a young generation and now ages the old
// one), mark-compacts and the longest pause. bench/ab.ts is the CPU-only A/B with autocannon.
//   AB_A          the tree before the change [required];  AB_B  the tree with it [this checkout]
//   AB_SCENARIOS  comma-separated, as bench/ab.ts (openai->openai, openai->anthropic, ... " stream")
//   AB_SECONDS [3], AB_REPEATS [3], AB_CONNECTIONS [32]
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ProtocolId } from '../server/ir/index.ts';
import { MAIN_THREAD_NODE_FLAGS } from '../server/app/heap-sizing.ts';
import { clientRequest } from './client-requests.ts';
import { GcTally } from './gc-tally.ts';
import { GATEWAY_ENV, gatewayModel, UPSTREAM_MODEL, writeGatewayConfig } from './gateway-config.ts';
import { runLoad, warmUp } from './load-runner.ts';
import { spawnServer } from './spawn-server.ts';
import { median } from './stats.ts';

const here = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const A = process.env.AB_A;
if (A === undefined) throw new Error('AB_A: the gateway tree to compare against');
const B = process.env.AB_B ?? here;
const seconds = Number(process.env.AB_SECONDS ?? 3);
const repeats = Number(process.env.AB_REPEATS ?? 3);
const connections = Number(process.env.AB_CONNECTIONS ?? 32);
const scenarios = (process.env.AB_SCENARIOS ?? 'openai->openai,openai->anthropic').split(',');

/** A gateway whose stdout is read for its GC lines (spawnServer drains stdout without reading it). */
async function spawnTraced(tree: string, config: string): Promise<{ url: string; pid: number; gc: GcTally; stop(): Promise<void> }> {
  const args = [...MAIN_THREAD_NODE_FLAGS, '--trace-gc', '--trace-gc-nvp', join(tree, 'server/main.ts'), '--config', config];
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, ...GATEWAY_ENV }, stdio: ['ignore', 'pipe', 'inherit'] });
  const gc = new GcTally();
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${tree} exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('[')) return gc.line(line);
      if (!line.startsWith('{"') || !line.includes('"dataUrl"')) return;
      resolve((JSON.parse(line) as { dataUrl: string }).dataUrl);
    });
  });
  return {
    url,
    pid: child.pid!,
    gc,
    stop: async () => {
      child.kill('SIGTERM');
      await exit;
    },
  };
}

const dir = mkdtempSync(join(tmpdir(), 'gateway-ab-tail-'));
const mock = await spawnServer(process.execPath, [join(here, 'bench/mock-upstream-server.ts')]);
const proxy = await spawnServer(process.execPath, [join(here, 'bench/minimal-proxy.ts')], { UPSTREAM: mock.url });
const config = writeGatewayConfig({ dir, mockUrl: mock.url, workers: 1, governance: false, paced: { chunks: 1, intervalMs: 1 } });
const gatewayA = await spawnTraced(A, config);
const gatewayB = await spawnTraced(B, config);
interface Row {
  cpu: number[];
  p99: number[];
  scavengesPerK: number[];
  allocatedKb: number[];
  promotedKb: number[];
  markCompacts: number[];
  maxPause: number[];
}
try {
  console.log(`A ${A}, B ${B}, workers 1, ${connections} connections, ${repeats} x ${seconds} s (wrk); medians`);
  for (const s of scenarios) {
    const [pair = '', word] = s.split(' ');
    const [ingress, egress] = pair.split('->') as [ProtocolId, ProtocolId];
    const stream = word === 'stream';
    const targets = [
      { name: 'floor', url: proxy.url, pid: proxy.pid, request: clientRequest('openai', UPSTREAM_MODEL, stream, 'bench'), gc: undefined },
      { name: 'A', url: gatewayA.url, pid: gatewayA.pid, request: clientRequest(ingress, gatewayModel(egress), stream, 'bench'), gc: gatewayA.gc },
      { name: 'B', url: gatewayB.url, pid: gatewayB.pid, request: clientRequest(ingress, gatewayModel(egress), stream, 'bench'), gc: gatewayB.gc },
    ];
    for (const t of targets) await warmUp({ url: t.url, request: t.request, connections, generator: 'wrk' }, 6000);
    const rows = new Map<string, Row>(
      targets.map((t) => [t.name, { cpu: [], p99: [], scavengesPerK: [], allocatedKb: [], promotedKb: [], markCompacts: [], maxPause: [] }]),
    );
    for (let r = 0; r < repeats; r++) {
      for (const t of r % 2 === 0 ? targets : [...targets].reverse()) {
        const before = t.gc?.snapshot();
        const sample = await runLoad({ url: t.url, request: t.request, connections, seconds, pid: t.pid, generator: 'wrk' });
        const row = rows.get(t.name)!;
        row.cpu.push(sample.cpuMicrosPerRequest ?? 0);
        row.p99.push(sample.p99Ms);
        if (t.gc !== undefined && before !== undefined) {
          // The trace lines arrive through a pipe: give the last ones a moment.
          await new Promise((resolve) => setTimeout(resolve, 100));
          const scavenges = t.gc.scavenges - before.scavenges;
          row.scavengesPerK.push((scavenges * 1000) / sample.requests);
          row.allocatedKb.push((t.gc.allocated - before.allocated) / sample.requests / 1024);
          row.promotedKb.push(scavenges === 0 ? 0 : (t.gc.promoted - before.promoted) / scavenges / 1024);
          row.markCompacts.push(t.gc.markCompacts - before.markCompacts);
          row.maxPause.push(t.gc.maxPauseMs);
        }
      }
    }
    const floor = median(rows.get('floor')!.cpu);
    console.log(s);
    for (const t of targets) {
      const row = rows.get(t.name)!;
      const cpu = median(row.cpu);
      const gcText =
        t.gc === undefined
          ? ''
          : `  alloc/req ${median(row.allocatedKb).toFixed(1)} KB  scavenges/1k req ${median(row.scavengesPerK).toFixed(1)}  promoted/scavenge ${median(row.promotedKb).toFixed(0)} KB  mark-compacts ${median(row.markCompacts)}  max pause ${median(row.maxPause).toFixed(1)} ms`;
      console.log(
        `  ${t.name.padEnd(5)} cpu ${cpu.toFixed(0).padStart(4)} µs (${(cpu / floor).toFixed(2)}x)  p99 ${median(row.p99).toFixed(2).padStart(6)} ms${gcText}`,
      );
    }
    const a = rows.get('A')!;
    const b = rows.get('B')!;
    console.log(`  B/A cpu ${(median(b.cpu) / median(a.cpu)).toFixed(3)}  p99 ${(median(b.p99) / median(a.p99)).toFixed(3)}`);
  }
} finally {
  await Promise.all([gatewayA.stop(), gatewayB.stop(), proxy.stop(), mock.stop()]);
}
