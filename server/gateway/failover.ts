import type { ModelRoute } from '../config/runtime-config.ts';
import { GatewayFailure, gatewayError, type GatewayError } from '../ir/index.ts';
import { allowsFailover } from '../routing/outcome.ts';
import type { PoolRouter } from '../routing/pool-router.ts';
import type { AttemptContext, AttemptResult, RelayedError } from './attempt-result.ts';
import type { ClientGone, GoneWatcher } from './client-gone.ts';
import { credentialMaskFor } from './credential-mask.ts';
import type { Exchange } from './gateway-context.ts';
import { laneRefusalOf, type LaneRefusal } from './lane-refusal.ts';
import type { AbortListener } from '../upstream/abort-watch.ts';

/** One attempt on one lane, once the request is in that lane's protocol. */
export type LaneRun = (attempt: AttemptContext) => Promise<AttemptResult>;

/**
 * Readies the request for a lane (translation, when its protocol differs) and returns the run.
 * Throws a 400 `GatewayFailure` when the lane cannot express the request: nothing went upstream
 * and nothing was taken from the lane, so another lane is tried instead.
 */
export type Attempt = (lane: ModelRoute) => LaneRun;

/**
 * Tries a pool's lanes in the router's order until one commits (reliability.md §2): one attempt
 * per lane, within the pool's attempt and time budget, skipping lanes whose breaker or cooldown
 * says no and lanes at their concurrency limit. Every attempt's outcome goes to its breaker cell,
 * except a client that left. When nothing commits, the client gets the last failure (or a 503
 * with Retry-After when no lane was available at all). A lane whose protocol cannot express the
 * request is skipped before anything is taken from it (its breaker, probe and slot untouched) and
 * does not count against the attempt budget; its 400 is the answer only when no lane could serve.
 * Each lane tried has its provider's credentials masked from the client's response from then on.
 */
export async function runWithFailover(exchange: Exchange, router: PoolRouter<ModelRoute>, attempt: Attempt): Promise<void> {
  const { gateway, res, meter } = exchange;
  const started = gateway.clock.now();
  const plan = router.plan();
  let last: { error: GatewayError; relay?: RelayedError } | undefined;
  let refused: LaneRefusal | undefined;
  /** A lane that could express the request was at capacity or closed when its turn came. */
  let busy = false;
  let attempts = 0;

  // Lanes past the attempt budget stand in only for lanes skipped as unable to express the request.
  for (const member of plan.spares.length === 0 ? plan.order : [...plan.order, ...plan.spares]) {
    if (attempts >= router.limits.maxAttempts) break;
    if (attempts > 0 && gateway.clock.now() - started >= router.limits.deadlineMs) break;
    const run = prepare(exchange, attempt, member.lane);
    if (typeof run !== 'function') {
      refused ??= run;
      continue;
    }
    const limiter = gateway.routing.limiter(member.lane);
    if (!limiter.tryAcquire()) {
      busy = true;
      continue;
    }
    const admission = member.cell.admit();
    if (admission.kind === 'unavailable') {
      limiter.release();
      busy = true;
      continue;
    }
    if (attempts > 0) router.countFailover();
    attempts++;
    res.guardCredentials(credentialMaskFor(member.lane.provider)); // before anything of this lane can reach the client
    let result: AttemptResult;
    const attemptStart = meter.beginAttempt(member.lane);
    const context = new LaneAttempt(exchange.clientGone, member.lane);
    try {
      result = await run(context);
    } catch (error) {
      // Thrown before any upstream verdict: the gateway's own failure, which never moves lane
      // state, but must not keep the probe.
      member.cell.abandon();
      meter.endAttempt(member.lane, 'gateway_local', attemptStart);
      throw error;
    } finally {
      context.close();
      limiter.release();
    }
    meter.endAttempt(member.lane, result.status === 'client_gone' ? 'client_gone' : result.outcome, attemptStart);
    if (result.status === 'client_gone') {
      member.cell.abandon();
      // The request reached the upstream, which may bill it: settled on an estimate unless the
      // attempt settled it with what it saw (a committed stream).
      if (context.sent) await res.abandon({ lane: member.lane, usage: null, answerBytes: 0 });
      return;
    }
    if (result.status === 'committed') {
      // Whatever the client does next (openai-python closes at once), its answer was whole.
      meter.delivered = result.outcome === 'success' && !res.dropped;
      member.cell.record(result.outcome);
      return;
    }
    member.cell.record(result.outcome, retryAfterMs(result.error));
    exchange.log.debug({ lane: member.name, outcome: result.outcome, status: result.error.status, code: result.error.code }, 'attempt failed'); // the request line lists attempts
    last = { error: result.error, ...(result.relay !== undefined && { relay: result.relay }) };
    if (!allowsFailover(result.outcome)) break;
  }

  // Nothing was tried and some lane refused: the 400 is the answer when no member of the pool,
  // available now or not, can express the request; otherwise the lanes that can are busy (503).
  if (last === undefined && refused !== undefined && !busy && !router.members.some((m) => typeof prepare(exchange, attempt, m.lane, false) === 'function')) {
    throw new GatewayFailure(refused.error);
  }
  if (last?.relay !== undefined) {
    meter.error = last.error;
    res.sendBody(last.relay.status, last.relay.headers, last.relay.body);
    return;
  }
  throw new GatewayFailure(last?.error ?? noLaneAvailable(router.name, plan.retryAt, gateway.clock.now()));
}

/**
 * The lane's run, or its refusal to express the request (noted in the record as a skipped
 * attempt when `note`). Anything else thrown is not the lane's doing and propagates.
 */
function prepare(exchange: Exchange, attempt: Attempt, lane: ModelRoute, note = true): LaneRun | LaneRefusal {
  try {
    return attempt(lane);
  } catch (error) {
    const refusal = laneRefusalOf(error);
    if (refusal === undefined) throw error;
    if (note) exchange.meter.skipAttempt(lane, `cannot express ${refusal.field}`);
    return refusal;
  }
}

/**
 * One attempt's context: its own abort signal, aborted by the client leaving or by no content
 * within the lane's first-byte timeout (one controller for both: cheaper than AbortSignal.any),
 * and whether its request was sent. One object an attempt: it is what the client's departure
 * tells (`handleEvent`, without EventTarget listeners), its timer is handed the attempt instead
 * of a closure, and it tells the upstream call's reply itself (`watchAbort`: abort-watch.ts).
 */
class LaneAttempt implements AttemptContext, GoneWatcher {
  readonly lane: ModelRoute;
  readonly signal: AbortSignal;
  /** The request went upstream while the attempt was live: from then on the upstream may bill it. */
  sent = false;
  private readonly controller = new AbortController();
  private readonly client: ClientGone;
  private readonly timeout: NodeJS.Timeout;
  /** The upstream call watching this attempt's abort (one at a time). */
  private watcher: AbortListener | undefined;

  constructor(client: ClientGone, lane: ModelRoute) {
    this.lane = lane;
    this.signal = this.controller.signal;
    this.client = client;
    client.watch(this);
    this.timeout = setTimeout(abortAttempt, lane.timeouts.firstByteMs, this);
  }

  /** The client left. */
  handleEvent(): void {
    this.abort();
  }

  /** The signal first (its reason is what the watcher reads), then the watcher. */
  abort(): void {
    this.controller.abort();
    const watcher = this.watcher;
    this.watcher = undefined;
    watcher?.handleEvent();
  }

  watchAbort(listener: AbortListener): void {
    if (this.signal.aborted) listener.handleEvent();
    else this.watcher = listener;
  }

  unwatchAbort(listener: AbortListener): void {
    if (this.watcher === listener) this.watcher = undefined;
  }

  onCommit(): void {
    clearTimeout(this.timeout);
  }

  onSend(): void {
    if (!this.signal.aborted) this.sent = true;
  }

  /** The attempt is over: its timer and listener go. */
  close(): void {
    clearTimeout(this.timeout);
    this.client.unwatch(this);
    this.watcher = undefined;
  }
}

function abortAttempt(attempt: LaneAttempt): void {
  attempt.abort();
}

function retryAfterMs(error: GatewayError): number | undefined {
  return error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
}

function noLaneAvailable(name: string, retryAt: number | undefined, now: number): GatewayError {
  const seconds = retryAt === undefined ? 1 : Math.max(1, Math.ceil((retryAt - now) / 1000));
  return gatewayError('unavailable', `no upstream for "${name}" is available right now (breakers open, cooling down or at capacity); retry in ${seconds} s`, {
    status: 503,
    code: 'no_lane_available',
    retryAfterSeconds: seconds,
  });
}
