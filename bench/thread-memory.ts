// Where an idle gateway's memory is, by thread: each thread's V8 heap (committed, used, by space)
// and external memory, reported by a preload every thread runs (`--require`, which reaches
// evaluated worker scripts too; an executable gets it through NODE_OPTIONS), beside the process's
// RSS split by kind of mapping from /proc/<pid>/smaps (the node executable's file pages, glibc's
// heap, small anonymous mappings: V8's pages, stacks). Not part of `make bench`.
//
//   MEM_TARGET=dist/gateway MEM_WORKERS=2 node bench/thread-memory.ts
//
// MEM_TARGET: a source tree (default: this checkout, run with its main-thread flags) or an
// executable. MEM_SETTLE_MS (default 3000): smaps is read this long after the start line, the
// threads report half a second earlier, counted from their own start.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { GATEWAY_ENV, writeGatewayConfig } from './gateway-config.ts';
import { spawnServer } from './spawn-server.ts';
import { treeGateway } from './tree-gateway.ts';

const target = resolve(process.env.MEM_TARGET ?? '.');
const workers = Number(process.env.MEM_WORKERS ?? 2);
const settleMs = Number(process.env.MEM_SETTLE_MS ?? 3000);

// Each thread appends one JSON line. A data-plane worker has workerData; the loader and usage
// threads (kept-thread.ts) have none.
const PRELOAD = `
const { isMainThread, threadId, workerData } = require('node:worker_threads');
const v8 = require('node:v8');
const { appendFileSync } = require('node:fs');
const mib = (n) => Math.round(n / 104857.6) / 10;
setTimeout(() => {
  const h = v8.getHeapStatistics();
  const spaces = {};
  for (const s of v8.getHeapSpaceStatistics()) if (s.space_size > 0) spaces[s.space_name.replace('_space', '')] = mib(s.space_size);
  appendFileSync(process.env.THREAD_MEMORY_FILE, JSON.stringify({
    thread: threadId, role: isMainThread ? 'main' : workerData ? 'data-plane worker' : 'helper (loader/usage)',
    committed: mib(h.total_heap_size), used: mib(h.used_heap_size), external: mib(h.external_memory), spaces,
  }) + '\\n');
}, Number(process.env.THREAD_MEMORY_AT_MS)).unref();
`;

const dir = mkdtempSync(join(tmpdir(), 'thread-memory-'));
try {
  const preload = join(dir, 'report.cjs');
  const reports = join(dir, 'threads.jsonl');
  writeFileSync(preload, PRELOAD);
  const config = writeGatewayConfig({ dir, mockUrl: 'http://127.0.0.1:9', workers, governance: false, paced: { chunks: 4, intervalMs: 10 } });
  const executable = statSync(target).isFile();
  const [command, args] = executable ? [target, ['--config', config]] : await treeGateway(target, ['--config', config]);
  if (!executable) args.unshift('--require', preload);
  const server = await spawnServer(command, args, {
    ...GATEWAY_ENV,
    ...(executable && { NODE_OPTIONS: `--require=${preload}` }),
    THREAD_MEMORY_FILE: reports,
    // From the process's start: the report comes settleMs after the start line.
    THREAD_MEMORY_AT_MS: String(settleMs - 500),
  });
  await sleep(settleMs);
  const kinds = new Map<string, number>();
  let kind = '';
  for (const line of readFileSync(`/proc/${server.pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping !== null) {
      const [, from, to, name = ''] = mapping;
      const mib = (Number.parseInt(to!, 16) - Number.parseInt(from!, 16)) / 1048576;
      if (name.startsWith('/')) kind = name === command || name.endsWith('/node') ? 'the node executable (file pages)' : 'other files';
      else if (name !== '') kind = name;
      else
        kind = mib <= 1 ? 'anonymous, up to 1 MiB (V8 pages)' : mib <= 8.01 ? 'anonymous, 1-8 MiB (stacks, V8)' : 'anonymous, over 8 MiB (malloc arenas, V8)';
      continue;
    }
    const rss = /^Rss:\s+(\d+)/.exec(line);
    if (rss !== null) kinds.set(kind, (kinds.get(kind) ?? 0) + Number(rss[1]) / 1024);
  }
  await server.stop();
  const total = [...kinds.values()].reduce((a, b) => a + b, 0);
  console.log(`${target} with ${workers} worker(s), ${settleMs} ms after start: RSS ${total.toFixed(1)} MiB`);
  for (const [name, mib] of [...kinds].sort((a, b) => b[1] - a[1])) if (mib >= 0.5) console.log(`  ${name.padEnd(40)} ${mib.toFixed(1).padStart(6)} MiB`);
  if (!existsSync(reports)) throw new Error('no thread reported (the preload did not run)');
  console.log('thread  role                    heap committed  used  external  committed by space (MiB)');
  for (const r of readFileSync(reports, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>)) {
    const spaces = Object.entries(r.spaces as Record<string, number>)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    console.log(
      `${String(r.thread).padStart(6)}  ${String(r.role).padEnd(22)} ${String(r.committed).padStart(15)} ${String(r.used).padStart(5)} ${String(r.external).padStart(9)}  ${spaces}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
