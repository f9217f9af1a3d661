import { BreakerCell, privateCellSlot, type Admission } from './breaker-cell.ts';
import type { BreakerSettings } from './breaker-settings.ts';
import type { Clock } from '../shared/clock.ts';
import type { CellSlot } from './routing-memory.ts';
import { SmoothWeightedRoundRobin } from './smooth-weighted-round-robin.ts';

export interface PoolMemberSpec<L> {
  readonly lane: L;
  /** The lane's name, unique in the pool (the operator's model name). */
  readonly name: string;
  readonly weight: number;
}

export interface PoolLimits {
  /** Lanes one request may try, the first included. */
  readonly maxAttempts: number;
  /** Total time one request may spend across attempts before it stops failing over. */
  readonly deadlineMs: number;
}

export interface AttemptPlan<L> {
  /** Members to try in order: the weighted pick first, then the other available ones. */
  readonly order: readonly { readonly lane: L; readonly name: string; readonly cell: BreakerCell }[];
  /**
   * The other available members past the attempt budget, in the same order: tried only in place
   * of members skipped without an attempt (a lane that cannot express the request).
   */
  readonly spares: readonly { readonly lane: L; readonly name: string; readonly cell: BreakerCell }[];
  /** When nothing is available: the soonest moment a member may be again (monotonic ms). */
  readonly retryAt: number | undefined;
}

export interface PoolRouterOptions<L> {
  readonly name: string;
  readonly members: readonly PoolMemberSpec<L>[];
  readonly settings: BreakerSettings;
  readonly limits: PoolLimits;
  readonly clock: Clock;
  /** Where the state lives when threads share it: one cell slot per member, the failover counter, this thread's worker number. */
  readonly shared?: {
    readonly cells: readonly CellSlot[];
    readonly failovers: { readonly counts: Int32Array; readonly index: number };
    readonly worker: number;
  };
  /** The same pool under the configuration this one replaces: members it had keep their place in the rotation. */
  readonly rotationFrom?: PoolRouter<unknown>;
}

/**
 * One pool's routing state: a breaker cell per member (state is per pool and lane) and the
 * weighted rotation. Knows nothing about HTTP or wire formats.
 */
export class PoolRouter<L> {
  readonly name: string;
  readonly limits: PoolLimits;
  readonly members: readonly (PoolMemberSpec<L> & { readonly cell: BreakerCell })[];
  /**
   * Per thread: each worker rotates on its own, which keeps every worker's (and so the total)
   * distribution at the weights; only breaker state must be one across threads.
   */
  private readonly rotation: SmoothWeightedRoundRobin;
  private readonly failoverCount: { readonly counts: Int32Array; readonly index: number };
  /** A pool of one's plan while its member is available, made on first use. */
  private onePlan: AttemptPlan<L> | undefined;

  constructor(options: PoolRouterOptions<L>) {
    this.name = options.name;
    this.limits = options.limits;
    const shared = options.shared;
    this.members = options.members.map((m, i) => ({
      ...m,
      cell: new BreakerCell(options.settings, options.clock, shared?.cells[i] ?? privateCellSlot(), shared?.worker),
    }));
    const before = options.rotationFrom;
    this.rotation = new SmoothWeightedRoundRobin(
      this.members.map((m) => m.weight),
      before === undefined ? undefined : this.members.map((m) => before.rotationOf(m.name)),
    );
    this.failoverCount = shared?.failovers ?? { counts: new Int32Array(new SharedArrayBuffer(4)), index: 0 };
  }

  /** A member's place in this thread's rotation (0 for a name that is not a member). */
  rotationOf(name: string): number {
    const i = this.members.findIndex((m) => m.name === name);
    return i < 0 ? 0 : this.rotation.currentOf(i);
  }

  /** Requests that went on to another lane after a failed attempt (across all workers). */
  get failovers(): number {
    return Atomics.load(this.failoverCount.counts, this.failoverCount.index);
  }

  countFailover(): void {
    Atomics.add(this.failoverCount.counts, this.failoverCount.index, 1);
  }

  /** The order to try members for one request. Taking a probe happens later, per attempt. */
  plan(): AttemptPlan<L> {
    if (this.members.length === 1) return this.planOfOne();
    const admissions = this.members.map((m) => m.cell.wouldAdmit());
    const available = (i: number) => admissions[i]!.kind !== 'unavailable';
    const first = this.rotation.pick(available);
    if (first === undefined) return { order: [], spares: [], retryAt: soonest(admissions) };
    const rest = this.members
      .map((_, i) => i)
      .filter((i) => i !== first && available(i))
      .sort((a, b) => this.members[b]!.weight - this.members[a]!.weight);
    const all = [first, ...rest].map((i) => {
      const m = this.members[i]!;
      return { lane: m.lane, name: m.name, cell: m.cell };
    });
    return { order: all.slice(0, this.limits.maxAttempts), spares: all.slice(this.limits.maxAttempts), retryAt: undefined };
  }

  /**
   * `plan` for a pool of one (a model used on its own: most requests), with the same rotation
   * step and the same answer, without arrays and closures per request: the available plan is
   * built once (plans are only read).
   */
  private planOfOne(): AttemptPlan<L> {
    const admission = this.members[0]!.cell.wouldAdmit();
    if (this.rotation.pick(admission.kind === 'unavailable' ? NONE : ANY) === undefined) return { order: [], spares: [], retryAt: soonest([admission]) };
    if (this.onePlan === undefined) {
      const m = this.members[0]!;
      const all = [{ lane: m.lane, name: m.name, cell: m.cell }];
      this.onePlan = Object.freeze({ order: all.slice(0, this.limits.maxAttempts), spares: all.slice(this.limits.maxAttempts), retryAt: undefined });
    }
    return this.onePlan;
  }
}

const ANY = (): boolean => true;
const NONE = (): boolean => false;

function soonest(admissions: readonly Admission[]): number | undefined {
  let best: number | undefined;
  for (const a of admissions) if (a.kind === 'unavailable' && (best === undefined || a.retryAt < best)) best = a.retryAt;
  return best;
}
