import type { ModelRoute, RuntimeConfig } from '../config/runtime-config.ts';
import type { Clock } from '../routing/clock.ts';
import { CELL_FLOATS, type CellSnapshot } from '../routing/breaker-cell.ts';
import { LaneLimiter } from '../routing/lane-limiter.ts';
import { PoolRouter, type PoolMemberSpec } from '../routing/pool-router.ts';
import { RoutingMemory, type RoutingLayout } from '../routing/routing-memory.ts';

export interface RoutingShare {
  /** The memory every thread maps (RoutingTable.layout() sized); absent: this thread's own. */
  readonly memory?: RoutingMemory;
  /** This thread's worker number, 1-based (the main thread, when it serves, is 1). */
  readonly worker?: number;
}

interface PoolSpec {
  readonly name: string;
  readonly members: readonly PoolMemberSpec<ModelRoute>[];
  readonly settings: RuntimeConfig['breaker'];
  readonly limits: { maxAttempts: number; deadlineMs: number };
}

/**
 * The routing state of a running gateway: one PoolRouter per pool, and one per model used on its
 * own (a pool of one, so breaker state is always per pool and lane), plus each lane's concurrency
 * limiter, shared by every pool the lane is in. Built once per configuration. The state lives in a
 * RoutingMemory that every data-plane worker maps; slots are assigned in configuration order, the
 * same in every thread.
 */
export class RoutingTable {
  private readonly routers = new Map<string, PoolRouter<ModelRoute>>();
  private readonly limiters = new Map<string, LaneLimiter>();
  readonly memory: RoutingMemory;

  /** The memory a configuration needs with `workers` threads. */
  static layout(config: RuntimeConfig, workers: number): RoutingLayout {
    const cells = poolSpecs(config).reduce((n, p) => n + p.members.length, 0);
    return { cells, lanes: config.models.size, pools: poolSpecs(config).length, workers, cellFloats: CELL_FLOATS };
  }

  constructor(config: RuntimeConfig, clock: Clock, share: RoutingShare = {}) {
    this.memory = share.memory ?? new RoutingMemory(RoutingTable.layout(config, 1));
    const worker = share.worker ?? 1;
    const { workers } = this.memory.layout;
    let lane = 0;
    for (const model of config.models.values()) {
      this.limiters.set(model.name, new LaneLimiter(model.maxConcurrent, {
        total: this.memory.laneInFlight, index: lane, mine: this.memory.laneInFlightByWorker, mineIndex: lane * workers + (worker - 1),
      }));
      lane++;
    }
    let cell = 0;
    poolSpecs(config).forEach((pool, index) => {
      const cells = pool.members.map(() => this.memory.cell(cell++));
      this.routers.set(pool.name, new PoolRouter({
        ...pool,
        clock,
        shared: { cells, failovers: { counts: this.memory.poolFailovers, index }, worker },
      }));
    });
  }

  router(name: string): PoolRouter<ModelRoute> | undefined {
    return this.routers.get(name);
  }

  limiter(lane: ModelRoute): LaneLimiter {
    const limiter = this.limiters.get(lane.name);
    if (limiter === undefined) throw new Error(`lane ${lane.name} is not in the routing table`);
    return limiter;
  }

  /**
   * A worker thread ended without finishing its requests: the lane slots and half-open probes it
   * held are given back, or they would stay taken for good.
   */
  releaseWorker(worker: number): void {
    const { workers, lanes } = this.memory.layout;
    for (let lane = 0; lane < lanes; lane++) {
      const held = Atomics.exchange(this.memory.laneInFlightByWorker, lane * workers + (worker - 1), 0);
      if (held > 0) Atomics.sub(this.memory.laneInFlight, lane, held);
    }
    for (const router of this.routers.values()) for (const m of router.members) m.cell.releaseProbeOf(worker);
  }

  /**
   * Breaker state, counters and failovers of every pool and lane, for /stats and metrics: the one
   * place they are read from. Reading never changes state (a half-open probe stays available).
   */
  snapshot(): RoutingSnapshot {
    return [...this.routers.values()].map((router) => ({
      pool: router.name,
      failovers: router.failovers,
      lanes: router.members.map((m) => ({
        lane: m.name,
        weight: m.weight,
        inFlight: this.limiter(m.lane).current,
        ...m.cell.snapshot(),
      })),
    }));
  }
}

/** Every pool, and every model as a pool of one, in configuration order. */
function poolSpecs(config: RuntimeConfig): PoolSpec[] {
  const specs: PoolSpec[] = [];
  for (const model of config.models.values()) {
    specs.push({
      name: model.name,
      members: [{ lane: model, name: model.name, weight: 1 }],
      settings: config.breaker,
      limits: { maxAttempts: 1, deadlineMs: Number.POSITIVE_INFINITY },
    });
  }
  for (const pool of config.pools.values()) {
    specs.push({
      name: pool.name,
      members: pool.members.map((m) => ({ lane: m.model, name: m.model.name, weight: m.weight })),
      settings: pool.breaker,
      limits: { maxAttempts: pool.maxAttempts, deadlineMs: pool.deadlineMs },
    });
  }
  return specs;
}

export type RoutingSnapshot = readonly {
  readonly pool: string;
  readonly failovers: number;
  readonly lanes: readonly (CellSnapshot & { readonly lane: string; readonly weight: number; readonly inFlight: number })[];
}[];
