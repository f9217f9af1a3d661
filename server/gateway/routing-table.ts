import type { ModelRoute, RuntimeConfig } from '../config/runtime-config.ts';
import type { Clock } from '../shared/clock.ts';
import { CELL_FLOATS, type CellSnapshot } from '../routing/breaker-cell.ts';
import { LaneLimiter } from '../routing/lane-limiter.ts';
import { PoolRouter, type PoolMemberSpec } from '../routing/pool-router.ts';
import { cellSlot, laneCounters, privateBlocks, releaseLaneSlots, type RoutingBlocks, type RoutingNeeds } from '../routing/routing-memory.ts';

export interface RoutingShare {
  /** The blocks every thread maps (RoutingMemory.share of RoutingTable.needs); absent: this thread's own. */
  readonly blocks?: RoutingBlocks;
  /** This thread's worker number, 1-based (the main thread, when it serves, is 1). */
  readonly worker?: number;
  /** The table this one replaces in this thread: pools keep their members' places in the weighted rotation. */
  readonly previous?: RoutingTable;
}

interface PoolSpec {
  readonly name: string;
  readonly members: readonly PoolMemberSpec<ModelRoute>[];
  readonly settings: RuntimeConfig['breaker'];
  readonly limits: { maxAttempts: number; deadlineMs: number };
}

/**
 * A lane's identity across configurations: its name, provider, base URL and upstream model. A lane
 * whose identity is the same in the next configuration keeps its state (breaker cells, requests in
 * flight); one whose provider or upstream model changed is a new lane and starts fresh. Credentials,
 * limits, timeouts and prices may change without making it another lane.
 */
export function laneKey(lane: ModelRoute): string {
  return `${lane.name}\u0000${lane.provider.name}\u0000${lane.provider.baseUrl}\u0000${lane.upstreamModel}`;
}

function cellKey(pool: string, lane: ModelRoute): string {
  return `${pool}\u0001${laneKey(lane)}`;
}

/**
 * The routing state of a running gateway: one PoolRouter per pool, and one per model used on its
 * own (a pool of one, so breaker state is always per pool and lane), plus each lane's concurrency
 * limiter, shared by every pool the lane is in. Built once per configuration, in every thread, over
 * the same shared blocks (routing-memory.ts), found by lane and pool identity.
 */
export class RoutingTable {
  private readonly routers = new Map<string, PoolRouter<ModelRoute>>();
  private readonly limiters = new Map<string, LaneLimiter>();
  readonly blocks: RoutingBlocks;

  /** The blocks a configuration needs. */
  static needs(config: RuntimeConfig): RoutingNeeds {
    const specs = poolSpecs(config);
    return {
      lanes: [...config.models.values()].map(laneKey),
      cells: specs.flatMap((pool) => pool.members.map((m) => cellKey(pool.name, m.lane))),
      pools: specs.map((pool) => pool.name),
    };
  }

  constructor(config: RuntimeConfig, clock: Clock, share: RoutingShare = {}) {
    this.blocks = share.blocks ?? privateBlocks(RoutingTable.needs(config), CELL_FLOATS);
    const worker = share.worker ?? 1;
    const block = (map: ReadonlyMap<string, SharedArrayBuffer>, key: string) => {
      const found = map.get(key);
      if (found === undefined) throw new Error(`routing memory has no block for ${key.replaceAll(/[\u0000\u0001]/g, '/')}`);
      return found;
    };
    for (const model of config.models.values()) {
      this.limiters.set(model.name, new LaneLimiter(model.maxConcurrent, laneCounters(block(this.blocks.lanes, laneKey(model)), worker)));
    }
    for (const pool of poolSpecs(config)) {
      const cells = pool.members.map((m) => cellSlot(block(this.blocks.cells, cellKey(pool.name, m.lane)), this.blocks.cellFloats));
      const previous = share.previous?.routers.get(pool.name);
      this.routers.set(
        pool.name,
        new PoolRouter({
          ...pool,
          clock,
          shared: { cells, failovers: { counts: new Int32Array(block(this.blocks.pools, pool.name)), index: 0 }, worker },
          ...(previous !== undefined && { rotationFrom: previous }),
        }),
      );
    }
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
    for (const block of this.blocks.lanes.values()) releaseLaneSlots(block, worker);
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
