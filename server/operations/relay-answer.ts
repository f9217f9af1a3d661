import type { IncomingHttpHeaders } from 'node:http';
import { thrownFailure, upstreamErrorResult } from '../gateway/attempt-failure.ts';
import type { AttemptContext, AttemptResult } from '../gateway/attempt-result.ts';
import type { Exchange } from '../gateway/gateway-context.ts';
import { forwardedClientHeaders, relayedHeaders } from '../gateway/relayed-headers.ts';
import type { Usage } from '../ir/index.ts';
import { codecFor } from '../protocols/registry.ts';
import { describeBodyError, sendUpstream } from '../upstream/send-upstream.ts';

/** Answers up to this size are also kept whole for `onAnswer` (a transcription's usage); larger ones (audio, images) are only relayed. */
const KEPT_ANSWER_BYTES = 1024 * 1024;

/** One same-protocol call: the client's request for this lane (model rewritten), whole or streamed. */
export interface RelayCall {
  readonly path: string;
  /** A whole body, or a fresh stream of it for each attempt (a multipart upload going through). */
  readonly body: Buffer | (() => AsyncIterable<Buffer>);
  readonly contentType?: string;
  readonly contentLength?: number;
}

/**
 * Reads what the settlement needs of the answer: `body` is the whole answer when it was small
 * enough to keep (undefined otherwise). Returns the usage the record carries (null: none reported).
 */
export type OnAnswer = (body: Buffer | undefined, headers: IncomingHttpHeaders) => Usage | null;

/**
 * Same protocol, any answer: the upstream's status, content type and body relayed to the client
 * chunk by chunk as they arrive (speech audio streams, JSON and text answers alike), never
 * buffered beyond a small answer kept for its usage. An upstream error before the answer is the
 * attempt's failure (the next lane may be tried; relayed verbatim if it is the final answer).
 * Without `onAnswer` nothing reads the answer, so none of it is kept (no copy of it joined).
 */
export async function relayAnswer(exchange: Exchange, attempt: AttemptContext, call: RelayCall, onAnswer: OnAnswer | undefined): Promise<AttemptResult> {
  const { meter, ingress, res } = exchange;
  const { lane } = attempt;
  let committed = false;
  let answerBytes = 0;
  try {
    attempt.onSend();
    const upstream = await meter.upstream(
      sendUpstream(exchange.gateway.dispatchers.forConnectTimeout(lane.timeouts.connectMs), {
        provider: lane.provider,
        path: call.path,
        body: Buffer.isBuffer(call.body) ? call.body : call.body(),
        ...(call.contentType !== undefined && { contentType: call.contentType }),
        ...(call.contentLength !== undefined && { contentLength: call.contentLength }),
        accept: '*/*',
        forwardHeaders: forwardedClientHeaders(exchange.req.headers, ingress.forwardedHeaders),
        stream: true,
        signal: attempt.signal,
        abortWatch: attempt,
        headersTimeoutMs: lane.timeouts.firstByteMs,
        idleTimeoutMs: lane.timeouts.idleMs,
      }),
    );
    meter.upstreamStatus = upstream.status;
    if (upstream.status >= 400) return await meter.upstream(upstreamErrorResult(upstream, codecFor(lane.provider.protocol) ?? ingress.codec, lane, true));
    attempt.onCommit();
    const headers = relayedHeaders(upstream.headers);
    headers['x-gateway-lane'] = lane.name;
    headers['content-type'] ??= 'application/octet-stream';
    res.commit(upstream.status, headers);
    committed = true;
    const keeping = onAnswer !== undefined;
    const kept: Buffer[] = [];
    for await (const chunk of upstream.body) {
      const bytes = chunk as Buffer;
      answerBytes += bytes.length;
      if (keeping && answerBytes <= KEPT_ANSWER_BYTES) kept.push(bytes);
      else if (kept.length > 0) kept.length = 0; // too large to read: let go of the copy while the rest streams
      await res.write(bytes);
    }
    const usage =
      onAnswer?.(answerBytes <= KEPT_ANSWER_BYTES ? (kept.length === 1 ? kept[0]! : Buffer.concat(kept, answerBytes)) : undefined, upstream.headers) ?? null;
    await res.finish({ lane, usage, answerBytes });
    return { status: 'committed', outcome: 'success' };
  } catch (error) {
    if (!committed) return thrownFailure(error, exchange, attempt);
    // The answer had begun: settle what was sent, then cut the client's copy so it sees it incomplete.
    await res.abandon({ lane, usage: null, answerBytes });
    if (exchange.signal.aborted) return { status: 'client_gone' };
    meter.error = describeBodyError(error, lane.provider.name, 'stream');
    res.sendError(ingress.codec, meter.error);
    return { status: 'committed', outcome: 'lane_fault' };
  }
}
