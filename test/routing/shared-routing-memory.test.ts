// Routing state in shared memory: two RoutingTables over the same blocks stand for two worker
// threads; real threads share one half-open probe. (Whether the cell lock's
// compare-and-swap closes the nanosecond race between two first askers is not something a test on
// a busy 2-core machine can show reliably; what these show is that the state is one across threads.)
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { loadConfigText } from '../../server/config/load-config.ts';
import { RoutingTable } from '../../server/gateway/routing-table.ts';
import { CELL_FLOATS } from '../../server/routing/breaker-cell.ts';
import { RoutingMemory, type RoutingBlocks } from '../../server/routing/routing-memory.ts';
import { FakeClock } from './fake-clock.ts';

const CONFIG = `models:
  a: { provider: demo, model: demo-echo, max_concurrent: 3 }
  b: { provider: demo-anthropic, model: demo-echo }
pools:
  ab: { members: [ { model: a }, { model: b } ], breaker: { consecutive_failures: 2, jitter: 0 } }
`;

function twoWorkers() {
  const config = loadConfigText(CONFIG, 'config.yaml', '/tmp');
  const clock = new FakeClock();
  const blocks = new RoutingMemory(2, CELL_FLOATS).share(RoutingTable.needs(config));
  const one = new RoutingTable(config, clock, { blocks, worker: 1 });
  const two = new RoutingTable(config, clock, { blocks, worker: 2 });
  return { config, clock, one, two };
}

describe('routing state shared by workers', () => {
  it('faults recorded by different workers add up to one trip, seen by both', () => {
    const { one, two } = twoWorkers();
    one.router('ab')!.members[0]!.cell.record('lane_fault');
    two.router('ab')!.members[0]!.cell.record('lane_fault');
    for (const table of [one, two]) {
      const lane = table.snapshot().find((p) => p.pool === 'ab')!.lanes[0]!;
      expect(lane).toMatchObject({ state: 'open', counters: { laneFaults: 2, trips: 1 } });
    }
    expect(one.router('a')!.members[0]!.cell.snapshot().state).toBe('closed'); // another pool's cell
  });

  it("one half-open probe across workers, and a dead worker's probe is given back", () => {
    const { one, two, clock } = twoWorkers();
    const cellOne = one.router('ab')!.members[0]!.cell;
    const cellTwo = two.router('ab')!.members[0]!.cell;
    cellOne.record('lane_fault');
    cellOne.record('lane_fault');
    clock.advance(60_000);
    expect(cellTwo.admit().kind).toBe('probe');
    expect(cellOne.admit().kind).toBe('unavailable');
    one.releaseWorker(2); // worker 2 died holding the probe
    expect(cellOne.admit().kind).toBe('probe');
  });

  it("max_concurrent counts every worker's requests; a dead worker's slots are returned", () => {
    const { config, one, two } = twoWorkers();
    const a = config.models.get('a')!;
    expect(one.limiter(a).tryAcquire()).toBe(true);
    expect(two.limiter(a).tryAcquire()).toBe(true);
    expect(two.limiter(a).tryAcquire()).toBe(true);
    expect(one.limiter(a).tryAcquire()).toBe(false);
    expect(one.limiter(a).current).toBe(3);
    one.releaseWorker(2);
    expect(one.limiter(a).current).toBe(1);
    expect(one.limiter(a).tryAcquire()).toBe(true);
    one.limiter(a).release();
    one.limiter(a).release();
    one.limiter(a).release(); // more releases than acquisitions never go below zero
    expect(one.limiter(a).current).toBe(0);
  });

  it('real threads over the same blocks, started together: one probe among them each round', async () => {
    const { one, clock } = twoWorkers();
    const cell = one.router('ab')!.members[0]!.cell;
    const threads = 2; // one per core, each spinning hot, so they see the start together
    const rounds = 300;
    // control[0]: the round the threads may run; control[1]: answers given so far.
    const control = new Int32Array(new SharedArrayBuffer(8));
    const now = new Float64Array(new SharedArrayBuffer(8));
    const results = new Int32Array(new SharedArrayBuffer(4 * threads * rounds));
    const racers = Array.from({ length: threads }, (_, i) => startRacer(one.blocks, { index: i, rounds, control, now, results }));
    await Promise.all(racers.map((r) => r.ready));
    for (let round = 1; round <= rounds; round++) {
      cell.record('lane_fault');
      cell.record('lane_fault'); // open (again: the last round's probe was left in flight)
      one.releaseWorker(1);
      one.releaseWorker(2);
      clock.advance(10 * 60_000);
      now[0] = clock.now();
      Atomics.store(control, 0, round);
      Atomics.notify(control, 0);
      while (Atomics.load(control, 1) < round * threads) await Atomics.waitAsync(control, 1, Atomics.load(control, 1), 1000).value;
      const probes = results.subarray((round - 1) * threads, round * threads).reduce((a, b) => a + b, 0);
      expect(probes).toBe(1);
    }
    await Promise.all(racers.map((r) => r.thread.terminate()));
  });
});

/**
 * A thread with its own RoutingTable over the shared blocks. Each round it waits for the start
 * signal, asks the cell for admission many times and writes how many probes it got.
 */
function startRacer(blocks: RoutingBlocks, shared: { index: number; rounds: number; control: Int32Array; now: Float64Array; results: Int32Array }) {
  const script = `
    const { workerData: d, parentPort } = require('node:worker_threads');
    (async () => {
      const { RoutingTable } = await import(d.tableModule);
      const { loadConfigText } = await import(d.configModule);
      const config = loadConfigText(d.config, 'config.yaml', '/tmp');
      const clock = { now: () => d.now[0], random: () => 0.5 };
      const table = new RoutingTable(config, clock, { blocks: d.blocks, worker: (d.index % 2) + 1 });
      const cell = table.router('ab').members[0].cell;
      parentPort.postMessage('ready');
      for (let round = 1; round <= d.rounds; round++) {
        while (Atomics.load(d.control, 0) < round) { /* spin */ }
        // A few asks in a row: the threads start within nanoseconds of each other.
        let probes = 0;
        for (let i = 0; i < 50; i++) if (cell.admit().kind === 'probe') probes++;
        d.results[(round - 1) * d.threads + d.index] = probes;
        Atomics.add(d.control, 1, 1);
        Atomics.notify(d.control, 1);
      }
    })();`;
  const module = (path: string) => new URL(path, import.meta.url).href;
  const thread = new Worker(script, {
    eval: true,
    workerData: {
      ...shared,
      blocks,
      config: CONFIG,
      threads: shared.results.length / shared.rounds,
      tableModule: module('../../server/gateway/routing-table.ts'),
      configModule: module('../../server/config/load-config.ts'),
    },
  });
  const ready = new Promise<void>((resolve, reject) => {
    thread.once('message', () => resolve());
    thread.once('error', reject);
  });
  return { thread, ready };
}
