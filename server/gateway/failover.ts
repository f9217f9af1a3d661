import type { ModelRoute } from '../config/runtime-config.ts';
import { GatewayFailure, gatewayError, type GatewayError } from '../ir/index.ts';
import { allowsFailover } from '../routing/outcome.ts';
import type { PoolRouter } from '../routing/pool-router.ts';
import type { AttemptContext, AttemptResult, RelayedError } from './attempt-result.ts';
import type { Exchange } from './gateway-context.ts';

export type Attempt = (attempt: AttemptContext) => Promise<AttemptResult>;

/**
 * Tries a pool's lanes in the router's order until one commits (reliability.md §2): one attempt
 * per lane, within the pool's attempt and time budget, skipping lanes whose breaker or cooldown
 * says no and lanes at their concurrency limit. Every attempt's outcome goes to its breaker cell,
 * except a client that left. When nothing commits, the client gets the last failure (or a 503
 * with Retry-After when no lane was available at all).
 */
export async function runWithFailover(exchange: Exchange, router: PoolRouter<ModelRoute>, attempt: Attempt): Promise<void> {
  const { gateway, res, meter } = exchange;
  const started = gateway.clock.now();
  const plan = router.plan();
  let last: { error: GatewayError; relay?: RelayedError } | undefined;
  let attempts = 0;

  for (const member of plan.order) {
    if (attempts > 0 && gateway.clock.now() - started >= router.limits.deadlineMs) break;
    const limiter = gateway.routing.limiter(member.lane);
    if (!limiter.tryAcquire()) continue;
    const admission = member.cell.admit();
    if (admission.kind === 'unavailable') {
      limiter.release();
      continue;
    }
    if (attempts > 0) router.countFailover();
    attempts++;
    let result: AttemptResult;
    const attemptStart = meter.beginAttempt(member.lane);
    const sent = { value: false };
    try {
      result = await runAttempt(exchange, member.lane, attempt, sent);
    } catch (error) {
      // Thrown before any upstream verdict (a request that cannot be translated for this lane):
      // the gateway's own refusal, which never moves lane state, but must not keep the probe.
      member.cell.abandon();
      meter.endAttempt(member.lane, 'gateway_local', attemptStart);
      throw error;
    } finally {
      limiter.release();
    }
    meter.endAttempt(member.lane, result.status === 'client_gone' ? 'client_gone' : result.outcome, attemptStart);
    if (result.status === 'client_gone') {
      member.cell.abandon();
      // The request reached the upstream, which may bill it: settled on an estimate unless the
      // attempt settled it with what it saw (a committed stream).
      if (sent.value) await res.abandon({ lane: member.lane, usage: null, answerBytes: 0 });
      return;
    }
    if (result.status === 'committed') {
      member.cell.record(result.outcome);
      return;
    }
    member.cell.record(result.outcome, retryAfterMs(result.error));
    exchange.log.debug({ lane: member.name, outcome: result.outcome, status: result.error.status, code: result.error.code }, 'attempt failed'); // the request line lists attempts
    last = { error: result.error, ...(result.relay !== undefined && { relay: result.relay }) };
    if (!allowsFailover(result.outcome)) break;
  }

  if (last?.relay !== undefined) {
    meter.error = last.error;
    res.sendBody(last.relay.status, last.relay.headers, last.relay.body);
    return;
  }
  throw new GatewayFailure(last?.error ?? noLaneAvailable(router.name, plan.retryAt, gateway.clock.now()));
}

/** One attempt with its own abort signal: the client leaving, or no content within the first-byte timeout. */
async function runAttempt(exchange: Exchange, lane: ModelRoute, attempt: Attempt, sent: { value: boolean }): Promise<AttemptResult> {
  // One controller, aborted by either cause (cheaper than AbortSignal.any on every attempt).
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (exchange.signal.aborted) controller.abort();
  else exchange.signal.addEventListener('abort', abort, { once: true });
  const timeout = setTimeout(abort, lane.timeouts.firstByteMs);
  try {
    const onSend = () => {
      if (!controller.signal.aborted) sent.value = true;
    };
    return await attempt({ lane, signal: controller.signal, onCommit: () => clearTimeout(timeout), onSend });
  } finally {
    clearTimeout(timeout);
    exchange.signal.removeEventListener('abort', abort);
  }
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
