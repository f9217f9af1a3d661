// Idle RSS of gateways side by side: each target started in turn (interleaved repeats), its RSS and
// the anonymous part read from /proc/<pid>/smaps_rollup a while after its start line, medians
// printed. For A/B of memory changes: the RSS at start barely moves with the machine's load, unlike
// CPU, so this runs beside other benchmarks. Not part of `make bench` (its memory section reads the
// same numbers once per run).
//
//   MEM_TARGETS='before=/tmp/mem-a,after=.,exe=dist/gateway' MEM_WORKERS=1,2 node bench/idle-memory.ts
//
// A target is a source tree (run as `node <flags> <tree>/server/main.ts`, with that tree's own
// main-thread flags, tree-gateway.ts) or an executable file (dist/gateway). MEM_REPEATS (default 3), MEM_SETTLE_MS (default 3000:
// after the start line; V8's memory reducer lowers it further after about 10 s of idleness).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { GATEWAY_ENV, writeGatewayConfig } from './gateway-config.ts';
import { spawnServer } from './spawn-server.ts';
import { treeGateway } from './tree-gateway.ts';

const env = process.env;
const targets = (env.MEM_TARGETS ?? 'this=.').split(',').map((pair) => {
  const [label, path] = pair.includes('=') ? pair.split('=', 2) : [pair, pair];
  return { label: label!, path: resolve(path!) };
});
const workerCounts = (env.MEM_WORKERS ?? '1,2').split(',').map(Number);
const repeats = Number(env.MEM_REPEATS ?? 3);
const settleMs = Number(env.MEM_SETTLE_MS ?? 3000);

function smaps(pid: number): { rss: number; anon: number } {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { rss: kib('Rss') / 1024, anon: kib('Anonymous') / 1024 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const dir = mkdtempSync(join(tmpdir(), 'idle-memory-'));
try {
  for (const workers of workerCounts) {
    // The bench's own configuration (every protocol, one model each); the upstream is never called.
    const config = writeGatewayConfig({ dir, mockUrl: 'http://127.0.0.1:9', workers, governance: false, paced: { chunks: 4, intervalMs: 10 } });
    const samples = new Map(targets.map((t) => [t.label, [] as { rss: number; anon: number }[]]));
    for (let i = 0; i < repeats; i++) {
      for (const target of targets) {
        const [file, args] = await treeGateway(target.path, ['--config', config]);
        const server = await spawnServer(file, args, { ...GATEWAY_ENV });
        await sleep(settleMs);
        samples.get(target.label)!.push(smaps(server.pid));
        await server.stop();
      }
    }
    for (const [label, xs] of samples) {
      const rss = xs.map((x) => x.rss);
      console.log(
        `workers ${workers}  ${label.padEnd(16)} RSS median ${median(rss).toFixed(1)} MiB (${rss.map((r) => r.toFixed(1)).join(', ')}), anonymous ${median(xs.map((x) => x.anon)).toFixed(1)}`,
      );
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
