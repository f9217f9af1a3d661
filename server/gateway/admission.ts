import type { ModelRoute } from '../config/runtime-config.ts';
import { costMicrocents, worstCaseMicrocents } from '../governance/cost.ts';
import type { Governance, KeyRecord } from '../governance/governance.ts';
import { clampUsage } from '../governance/usage-ceiling.ts';
import { ledgerRequestId } from '../http/request-id.ts';
import { GatewayFailure, gatewayError, type Usage } from '../ir/index.ts';
import type { PoolRouter } from '../routing/pool-router.ts';
import type { AnswerSummary } from './client-response.ts';
import type { Exchange } from './gateway-context.ts';
import { tokensInBytes } from './token-estimate.ts';

/** A request admitted under governance: its reservation, settled at the answer's end or released. */
export interface Admitted {
  /** The virtual key's id. */
  readonly keyId: string;
  /**
   * The key has a budget, a team (whose budget it counts against) or a tpm: the upstream must be
   * held to the output limit the reservation assumed.
   */
  readonly bounded: boolean;
  /** Refunds the reservation unless the request was settled (it reached an upstream and committed, or its client left after). */
  release(): Promise<void>;
}

/**
 * Governance on, first step, from the headers alone, before the body is read: the client's
 * virtual key is checked (401) and its rate limit taken (429). A client without a valid key never
 * gets its body read (nor held in memory).
 */
export async function authorize(exchange: Exchange, governance: Governance): Promise<KeyRecord> {
  const pass = await governance.authorize(exchange.req.headers, exchange.query);
  exchange.meter.keyId = pass.key.id;
  if ('refusal' in pass) throw new GatewayFailure(pass.refusal);
  return pass.key;
}

/**
 * How an operation is priced: the worst case reserved before anything goes upstream, and the
 * settlement from what the answer used. Chat's is `chatPricing`; other operations declare theirs
 * (`operations/`).
 */
export interface OperationPricing {
  /** The most the request can cost on this lane (µ¢); undefined when the lane has no price for the operation. */
  worstCase(lane: ModelRoute): bigint | undefined;
  /**
   * The most tokens (input + output, as the settlement's usage will count them) the request can
   * use on this lane, held against the key's tpm; 0 for an operation whose usage carries no tokens.
   */
  worstCaseTokens(lane: ModelRoute): number;
  /** The usage charged (the report, or an estimate when there is none) and its cost on the lane that answered. */
  settle(summary: AnswerSummary): { usage: Usage; costMicrocents: bigint };
}

/**
 * Second step, once the body is read: the worst case of the request reserved against the key's
 * budget (402; 400 for a model without a price) before anything goes upstream. The worst case
 * covers every lane the request might be served by, at the dearest lane's prices.
 */
export async function admit(
  exchange: Exchange,
  governance: Governance,
  key: KeyRecord,
  router: PoolRouter<ModelRoute>,
  pricing: OperationPricing,
  lanes: readonly ModelRoute[] = router.members.map((m) => m.lane),
): Promise<Admitted> {
  let priced = true;
  let worst = 0n;
  let worstTokens = 0;
  for (const lane of lanes) {
    const cost = pricing.worstCase(lane);
    if (cost === undefined) priced = false;
    else if (cost > worst) worst = cost;
    const tokens = pricing.worstCaseTokens(lane);
    if (tokens > worstTokens) worstTokens = tokens;
  }
  const reservation = await governance.reserve(key, { worstCaseMicrocents: worst, priced, model: router.name, worstCaseTokens: worstTokens });
  /** Set once the answer's settlement began: from then on the reservation is never released. */
  let isSettled = false;
  const ledgerId = ledgerRequestId(exchange.requestId, exchange.req.headers);
  if (ledgerId !== exchange.requestId) exchange.meter.ledgerId = ledgerId;
  exchange.res.onFinish(async (summary) => {
    isSettled = true;
    // After commit (or after the request reached an upstream and the client left), a settlement
    // fault is this request's alone: it must never throw into the attempt, where it would read as a
    // lane fault (breaker charged, the next lane tried and its answer written after this one).
    try {
      const reported = summary.usage === null ? null : clampUsage(summary.usage);
      if (reported !== null && reported.clamped.length > 0) {
        exchange.log.warn({ lane: summary.lane.name, ledgerId, clamped: reported.clamped }, 'the upstream reported usage that cannot be billed as is; clamped');
      }
      const charged = pricing.settle(reported === null ? summary : { ...summary, usage: reported.usage });
      exchange.meter.costMicrocents = charged.costMicrocents;
      await governance.settle(reservation, {
        ...charged,
        requestId: ledgerId,
        model: summary.lane.upstreamModel,
        lane: summary.lane.name,
        estimated: summary.usage === null,
      });
    } catch (error) {
      // The reservation stays held: the budget stays charged this request's worst case rather
      // than lose its spend (BudgetLedger.settle).
      exchange.meter.error = gatewayError('server', 'the spend of this request could not be recorded', { code: 'settlement_failed' });
      exchange.log.error(
        { err: error, keyId: key.id, ledgerId, lane: summary.lane.name },
        "spend settlement failed; the reservation stays held against the key's budget",
      );
    }
  });
  return {
    keyId: key.id,
    bounded: key.budgetMicrocents !== null || key.team !== null || key.tpm !== null,
    release: async () => {
      if (!isSettled) await governance.release(reservation);
    },
  };
}

/**
 * Chat: the request's bytes as input tokens (a token is at least a byte) and its output-token
 * limit at the lane's token prices; settled on the reported usage, or an estimate from the bytes.
 * The same two bound its tokens (the lane's default limit when the client set none: the upstream
 * is held to it, see `capOutput` in handle-chat.ts).
 */
export function chatPricing(request: { bytes: number; maxTokens: number | undefined }): OperationPricing {
  return {
    worstCaseTokens: (lane) => request.bytes + (request.maxTokens ?? lane.defaultMaxTokens),
    worstCase: (lane) =>
      lane.price === undefined
        ? undefined
        : worstCaseMicrocents({ requestBytes: request.bytes, maxOutputTokens: request.maxTokens ?? lane.defaultMaxTokens, price: lane.price }),
    settle(summary) {
      // Nothing reached the client (it left while the upstream was still working, say on a non-stream
      // answer): the upstream may well finish and bill it all, so the output is the most it could write.
      const outputTokens = summary.answerBytes === 0 ? (request.maxTokens ?? summary.lane.defaultMaxTokens) : Math.ceil(summary.answerBytes / 4);
      const usage = summary.usage ?? estimate(request.bytes, outputTokens);
      return { usage, costMicrocents: summary.lane.price === undefined ? 0n : costMicrocents(usage, summary.lane.price) };
    },
  };
}

/**
 * No usage report (a stream cut before its last event, or a client gone before any answer): about
 * four bytes a token, never zero, so a request that reached an upstream is never free.
 */
function estimate(requestBytes: number, outputTokens: number): Usage {
  return {
    inputTokens: tokensInBytes(requestBytes),
    outputTokens: Math.max(1, outputTokens),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
}
