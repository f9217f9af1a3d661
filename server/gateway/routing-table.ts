import type { ModelRoute, RuntimeConfig } from '../config/runtime-config.ts';
import type { Clock } from '../routing/clock.ts';
import type { CellSnapshot } from '../routing/breaker-cell.ts';
import { LaneLimiter } from '../routing/lane-limiter.ts';
import { PoolRouter } from '../routing/pool-router.ts';

/**
 * The routing state of a running gateway: one PoolRouter per pool, and one per model used on its
 * own (a pool of one, so breaker state is always per pool and lane), plus each lane's concurrency
 * limiter, shared by every pool the lane is in. Built once per configuration; lives in this
 * process (see ARCHITECTURE.md for how it will be shared across workers).
 */
export class RoutingTable {
  private readonly routers = new Map<string, PoolRouter<ModelRoute>>();
  private readonly limiters = new Map<string, LaneLimiter>();

  constructor(config: RuntimeConfig, clock: Clock) {
    for (const model of config.models.values()) {
      this.limiters.set(model.name, new LaneLimiter(model.maxConcurrent));
      this.routers.set(model.name, new PoolRouter({
        name: model.name,
        members: [{ lane: model, name: model.name, weight: 1 }],
        settings: config.breaker,
        limits: { maxAttempts: 1, deadlineMs: Number.POSITIVE_INFINITY },
        clock,
      }));
    }
    for (const pool of config.pools.values()) {
      this.routers.set(pool.name, new PoolRouter({
        name: pool.name,
        members: pool.members.map((m) => ({ lane: m.model, name: m.model.name, weight: m.weight })),
        settings: pool.breaker,
        limits: { maxAttempts: pool.maxAttempts, deadlineMs: pool.deadlineMs },
        clock,
      }));
    }
  }

  router(name: string): PoolRouter<ModelRoute> | undefined {
    return this.routers.get(name);
  }

  limiter(lane: ModelRoute): LaneLimiter {
    let limiter = this.limiters.get(lane.name);
    if (limiter === undefined) {
      limiter = new LaneLimiter(lane.maxConcurrent);
      this.limiters.set(lane.name, limiter);
    }
    return limiter;
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

export type RoutingSnapshot = readonly {
  readonly pool: string;
  readonly failovers: number;
  readonly lanes: readonly (CellSnapshot & { readonly lane: string; readonly weight: number; readonly inFlight: number })[];
}[];
