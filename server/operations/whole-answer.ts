import type { IncomingHttpHeaders } from 'node:http';
import type { ModelRoute } from '../config/runtime-config.ts';
import { thrownFailure, upstreamErrorResult } from '../gateway/attempt-failure.ts';
import type { AttemptContext, AttemptResult } from '../gateway/attempt-result.ts';
import { warningsHeader } from '../gateway/client-response.ts';
import type { Exchange } from '../gateway/gateway-context.ts';
import { forwardedClientHeaders, relayedHeaders } from '../gateway/relayed-headers.ts';
import { GatewayFailure, gatewayError, type Usage } from '../ir/index.ts';
import type { TranslationWarning } from '../protocols/codec.ts';
import { codecFor } from '../protocols/registry.ts';
import { sendUpstream, type UpstreamResponse } from '../upstream/send-upstream.ts';

/** The most of one upstream answer read (2048 vectors of 3072 floats as JSON is about 130 MB). */
const MAX_ANSWER_BYTES = 256 * 1024 * 1024;
/** Upstream calls of one translated request in flight at once (a batch split for the upstream's limit). */
const CALLS_AT_ONCE = 4;

/** One call to a lane: its path below the provider's base URL and its body. */
export interface WholeCall {
  readonly path: string;
  readonly body: string | Buffer;
}

/** A successful upstream answer, whole. */
export interface WholeAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/**
 * A successful upstream answer relayed as it is: its body in the pieces it was read in, never
 * joined (an embeddings batch is hundreds of KB: the pieces go to the client in one writev).
 */
export interface ForwardedAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: readonly Buffer[];
}

/** What the client is sent: the body in its protocol, and the usage the settlement charges (null: the upstream reported none). */
export interface ClientAnswer {
  readonly body: string | Buffer;
  readonly headers: Record<string, string>;
  readonly usage: Usage | null;
  readonly warnings: readonly TranslationWarning[];
}

/**
 * Same protocol: the client's bytes (only the model rewritten, by the caller) go to the lane and
 * the upstream's answer comes back as it is; `usageOf` reads its usage without parsing it whole.
 * An upstream error is relayed verbatim if it becomes the final answer.
 */
export async function forwardWhole(
  exchange: Exchange,
  attempt: AttemptContext,
  call: WholeCall,
  usageOf: (answer: ForwardedAnswer) => Usage | null,
): Promise<AttemptResult> {
  try {
    const answer = await callLane(exchange, attempt, call, true);
    if (!('body' in answer)) return answer;
    attempt.onCommit();
    const usage = usageOf(answer);
    const headers = relayedHeaders(answer.headers);
    headers['x-gateway-lane'] = attempt.lane.name;
    headers['content-type'] ??= 'application/json';
    if (usage === null) Object.assign(headers, noteEstimated(exchange));
    await exchange.res.sendAnswer(answer.status, headers, answer.body, { lane: attempt.lane, usage });
    return { status: 'committed', outcome: 'success' };
  } catch (error) {
    return thrownFailure(error, exchange, attempt);
  }
}

/**
 * Another protocol: the request in the lane's protocol as one call or several (a batch split to
 * the upstream's limit, at most a few in flight), each answer decoded, and `merge` makes the
 * client's answer from them all, in order. Any call failing fails the attempt, before anything
 * reached the client, so the next lane may be tried.
 */
export async function translateWhole<T>(
  exchange: Exchange,
  attempt: AttemptContext,
  calls: readonly WholeCall[],
  decode: (answer: WholeAnswer) => T,
  merge: (parts: T[]) => ClientAnswer,
): Promise<AttemptResult> {
  try {
    const parts: T[] = new Array(calls.length);
    let next = 0;
    let failed: AttemptResult | undefined;
    const worker = async () => {
      while (failed === undefined && next < calls.length) {
        const index = next++;
        const answer = await callLane(exchange, attempt, calls[index]!, false);
        if (!('body' in answer)) {
          failed ??= answer;
          return;
        }
        parts[index] = decodeOrFail(decode, { ...answer, body: joined(answer.body) }, attempt.lane);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CALLS_AT_ONCE, calls.length) }, worker));
    if (failed !== undefined) return failed;
    const client = merge(parts);
    attempt.onCommit();
    const warnings = client.usage === null ? [...client.warnings, ESTIMATED] : client.warnings;
    if (warnings.length > 0) exchange.meter.warnings = warnings;
    await exchange.res.sendAnswer(200, { ...client.headers, 'x-gateway-lane': attempt.lane.name, ...warningsHeader(warnings) }, client.body, {
      lane: attempt.lane,
      usage: client.usage,
    });
    return { status: 'committed', outcome: 'success' };
  } catch (error) {
    return thrownFailure(error, exchange, attempt);
  }
}

/** The warning an answer carries when the upstream reported no usage and the gateway estimated it. */
const ESTIMATED: TranslationWarning = {
  kind: 'estimated',
  path: 'usage',
  message: 'the upstream reported no token usage; the gateway estimated it from the input',
};

function noteEstimated(exchange: Exchange): Record<string, string> {
  exchange.meter.warnings = [ESTIMATED];
  return warningsHeader([ESTIMATED]);
}

/** One upstream call, its answer read whole; an error status becomes the attempt's failure. */
async function callLane(exchange: Exchange, attempt: AttemptContext, call: WholeCall, sameProtocol: boolean): Promise<ForwardedAnswer | AttemptResult> {
  const { meter, ingress } = exchange;
  const { lane } = attempt;
  attempt.onSend();
  const upstream = await meter.upstream(
    sendUpstream(exchange.gateway.dispatchers.forConnectTimeout(lane.timeouts.connectMs), {
      provider: lane.provider,
      path: call.path,
      body: call.body,
      forwardHeaders: sameProtocol ? forwardedClientHeaders(exchange.req.headers, ingress.forwardedHeaders) : {},
      stream: false,
      signal: attempt.signal,
      abortWatch: attempt,
      headersTimeoutMs: lane.timeouts.firstByteMs,
      idleTimeoutMs: lane.timeouts.idleMs,
    }),
  );
  meter.upstreamStatus = upstream.status;
  if (upstream.status >= 400) {
    const codec = codecFor(lane.provider.protocol) ?? ingress.codec;
    return meter.upstream(upstreamErrorResult(upstream, codec, lane, sameProtocol));
  }
  const body = await meter.upstream(readWhole(upstream.body, lane));
  return { status: upstream.status, headers: upstream.headers, body };
}

async function readWhole(body: UpstreamResponse['body'], lane: ModelRoute): Promise<Buffer[]> {
  const pieces = await body.collectPieces(MAX_ANSWER_BYTES);
  // Past the limit the answer fails: a cut JSON answer is no answer (the next lane may do better).
  if (body.overrun !== undefined) throw badAnswer(lane, `an answer larger than ${MAX_ANSWER_BYTES} bytes`);
  if (!startsAsJsonObject(pieces)) throw badAnswer(lane, 'an answer that is not a JSON object');
  return pieces;
}

function joined(pieces: readonly Buffer[]): Buffer {
  return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
}

function decodeOrFail<T>(decode: (answer: WholeAnswer) => T, answer: WholeAnswer, lane: ModelRoute): T {
  try {
    return decode(answer);
  } catch (error) {
    if (error instanceof GatewayFailure) throw error;
    throw badAnswer(lane, `an answer it could not read (${(error as Error).message})`);
  }
}

function badAnswer(lane: ModelRoute, what: string): GatewayFailure {
  // A lane fault (502): the next lane may do better.
  return new GatewayFailure(gatewayError('server', `upstream ${lane.provider.name} sent ${what}`, { status: 502, code: 'bad_upstream_response' }));
}

function startsAsJsonObject(pieces: readonly Buffer[]): boolean {
  for (const piece of pieces) {
    for (const byte of piece) {
      if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
      return byte === 0x7b;
    }
  }
  return false;
}
