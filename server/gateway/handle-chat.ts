import type { ChatRequest } from '../ir/index.ts';
import { withoutAbsentNulls } from '../protocols/shared/absent-nulls.ts';
import { admit, authorize, chatPricing } from './admission.ts';
import { bodyMemoryOf, type BodyHold } from './body-memory.ts';
import { answerFailure } from './answer-failure.ts';
import { attemptSameProtocol } from './attempt-same-protocol.ts';
import { translatedAttempt } from './attempt-translated.ts';
import { runWithFailover } from './failover.ts';
import { passGates } from './gate-check.ts';
import type { Exchange } from './gateway-context.ts';
import { parseRequestJson, readRequestBody } from './request-body.ts';
import { sameProtocolRequest, type SameProtocolRequest } from './stream-usage.ts';
import { reportRequest } from './report-request.ts';
import { requireLaneOperation, resolveModel, servingLanes } from './resolve-model.ts';

/**
 * One chat request, top to bottom (DESIGN.md, "The request pipeline"). Every failure reaches the
 * client in its own protocol's error shape with a status that says whose fault it was.
 */
export async function handleChat(exchange: Exchange): Promise<void> {
  const { gateway, ingress, meter } = exchange;
  gateway.inFlight.enter();
  // One async frame for the whole request (no inner `answer` awaited from an outer one): each
  // frame is a promise and a context per request.
  let hold: BodyHold | undefined;
  let bodyRead = false;
  try {
    const governance = gateway.config.governance ? gateway.governance : undefined;
    hold = bodyMemoryOf(gateway.config).hold();
    // The key and its rate limit come from the headers: a client without a valid key never gets
    // its body read, parsed or held.
    const key = governance === undefined ? undefined : await authorize(exchange, governance);
    const body = await readRequestBody(exchange.req, gateway.config.limits.maxRequestBytes, hold);
    bodyRead = true;
    const json = parseRequestJson(body, ingress.validateRequest);
    const modelName = exchange.origin.pathModel ?? (json.model as string | undefined);
    const router = resolveModel(exchange, modelName, 'chat');
    const stream = exchange.origin.pathStream ?? json.stream === true;
    meter.stream = stream;

    // Decoded at most once, and only if some lane speaks another protocol than the client (or
    // governance needs the output-token limit).
    let request: ChatRequest | undefined;
    const decoded = () => (request ??= ingress.codec.decodeRequest(withoutAbsentNulls(json, ingress.codec.id), exchange.origin));
    let same: SameProtocolRequest | undefined;
    const sameProtocol = () => (same ??= sameProtocolRequest(exchange, body, stream));
    if (exchange.content !== undefined) capturePrompt(exchange, decoded);

    const admitted =
      governance === undefined || key === undefined
        ? undefined
        : await admit(exchange, governance, key, router, chatPricing({ bytes: body.length, maxTokens: decoded().maxTokens }), servingLanes(router, 'chat'));
    // A budget (or a tpm) is a hard cap only if the upstream is held to the output the reservation
    // assumed (the lane's default limit, when the client set none): each attempt adds it.
    const capOutput = admitted?.bounded === true && decoded().maxTokens === undefined;
    try {
      if (gateway.gates.length > 0) await passGates(exchange, gateway.gates, { router, keyId: admitted?.keyId, stream, body: json });
      await runWithFailover(exchange, router, (lane) => {
        if (gateway.log.isLevelEnabled('debug')) exchange.log.debug({ model: modelName, lane: lane.name, provider: lane.provider.name, stream }, 'attempt');
        requireLaneOperation(lane, 'chat'); // a pool may mix chat and embedding models
        return lane.provider.protocol === ingress.codec.id
          ? (attempt) => attemptSameProtocol(exchange, attempt, sameProtocol().body, stream, { stripUsage: sameProtocol().stripUsage, capOutput })
          : translatedAttempt(exchange, lane, capOutput ? { ...decoded(), maxTokens: lane.defaultMaxTokens } : decoded()); // throws when this lane cannot express the request
      });
    } finally {
      await admitted?.release();
    }
  } catch (error) {
    answerFailure(exchange, error, bodyRead);
  } finally {
    hold?.release();
    gateway.inFlight.leave();
    reportRequest(exchange);
  }
}

/** Content capture on: the prompt, from the IR (a request the IR cannot read is still served, uncaptured). */
function capturePrompt(exchange: Exchange, decoded: () => ChatRequest): void {
  try {
    exchange.content?.prompt(decoded());
  } catch {
    // the same-protocol path never needed the IR; this request is answered all the same
  }
}
