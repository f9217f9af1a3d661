import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ModelRoute } from '../config/runtime-config.ts';
import { GatewayFailure, gatewayError, type ChatRequest, type ProtocolId } from '../ir/index.ts';
import { replaceTopLevelString } from '../protocols/passthrough.ts';
import { withoutAbsentNulls } from '../protocols/shared/absent-nulls.ts';
import { codecFor, protocolDefinition } from '../protocols/registry.ts';
import { readUpstreamBody } from '../http-body/bounded-body.ts';
import { retryAfterSeconds } from '../upstream/retry-after.ts';
import { sendUpstream } from '../upstream/send-upstream.ts';
import type { Gateway } from './gateway-context.ts';
import { INGRESS } from './ingress.ts';
import { bodyMemoryOf } from './body-memory.ts';
import { clientGoneSignal } from './client-gone.ts';
import { ClientResponse } from './client-response.ts';
import { requireAllowedModel } from '../governance/model-allow-list.ts';
import { configuredRouter, requireRouterOperation, servingLanes } from './resolve-model.ts';
import { closeUnread } from './close-unread.ts';
import { credentialMaskFor } from './credential-mask.ts';
import { forwardedClientHeaders } from './relayed-headers.ts';
import { checkRequestJson, parseJsonObject, readRequestBody } from './request-body.ts';
import { classifyUpstreamError, isUpstreamCredentialFailure, redactCredential, upstreamCredentialFailure } from './upstream-error.ts';
import { estimateInputTokens, tokensInBytes } from './token-estimate.ts';

/** The two count routes the gateway serves: Anthropic's `count_tokens` and Gemini's `:countTokens`. */
export type CountingProtocol = 'anthropic' | 'gemini';

/** The protocols whose count answer (`input_tokens`, `totalTokens`) this handler writes. */
export function isCountingProtocol(protocol: ProtocolId): protocol is CountingProtocol {
  return protocol === 'anthropic' || protocol === 'gemini';
}

/** Says how an answer's count was made: `upstream` (the lane's provider counted) or `estimate`. */
export const TOKEN_COUNT_HEADER = 'x-gateway-token-count';

const MAX_COUNT_ANSWER_BYTES = 1024 * 1024;

interface CountCall {
  readonly protocol: CountingProtocol;
  /** Gemini names the model in the path. */
  readonly pathModel?: string;
  readonly query: string;
  readonly requestId: string;
}

/**
 * Counts a request's input tokens, routed like a chat request (model → pool → lane, the virtual
 * key checked when governance is on, nothing spent). A lane of the client's own protocol gets
 * the request forwarded to its count endpoint, as is but for the model. Another lane's provider
 * counts the translated request when it has a count endpoint (Anthropic, Gemini, OpenAI's
 * Responses, Bedrock); otherwise, or when that endpoint fails, the answer is an estimate and says so
 * (`x-gateway-token-count: estimate` and `"estimated": true`).
 */
export async function countTokens(gateway: Gateway, req: IncomingMessage, res: ServerResponse, call: CountCall): Promise<void> {
  const started = performance.now();
  const client = new ClientResponse(res, { 'x-request-id': call.requestId });
  const line: CountLine = {};
  try {
    await count(gateway, req, res, client, call, line);
  } finally {
    // Counts make no request record (nothing is generated or spent: no stats, metrics, webhooks),
    // but each gets a log line of its own, so they are not invisible.
    if (gateway.log.isLevelEnabled('info')) {
      gateway.log.info(
        {
          requestId: call.requestId,
          ingress: call.protocol,
          ...line,
          status: client.status === 0 ? undefined : client.status,
          ...(res.writableFinished ? {} : { clientGone: true }),
          latencyMs: Math.round((performance.now() - started) * 1000) / 1000,
        },
        'token count',
      );
    }
  }
}

/** What a count's log line tells beyond its id, protocol, status and time. */
interface CountLine {
  model?: string;
  lane?: string;
  /** `upstream` or `estimate`, as the answer's header says. */
  count?: 'upstream' | 'estimate';
  errorKind?: string;
  errorCode?: string;
}

async function count(gateway: Gateway, req: IncomingMessage, res: ServerResponse, client: ClientResponse, call: CountCall, line: CountLine): Promise<void> {
  const ingress = INGRESS[call.protocol];
  const signal = AbortSignal.any([clientGoneSignal(res), AbortSignal.timeout(gateway.config.limits.firstByteTimeoutMs)]);
  const hold = bodyMemoryOf(gateway.config).hold();
  let bodyRead = false;
  try {
    // The key is checked from the headers before the body is read, as for chat.
    const key =
      gateway.config.governance && gateway.governance !== undefined
        ? await gateway.governance.authenticate(req.headers, new URLSearchParams(call.query))
        : undefined;
    const raw = await readRequestBody(req, gateway.config.limits.maxRequestBytes, hold);
    bodyRead = true;
    const json = parseJsonObject(raw);
    const modelName = call.pathModel ?? (typeof json.model === 'string' ? json.model : undefined);
    const router = configuredRouter(gateway, modelName);
    requireRouterOperation(router, 'count_tokens');
    requireAllowedModel(key, router.name); // a count names the model too: the key's allow-list holds
    // Only the members that count (a chat model counts; an embedding model does not).
    const counting = servingLanes(router, 'count_tokens');
    const lane = pickLane(counting, call.protocol);
    line.model = router.name;
    line.lane = lane.name;
    client.guardCredentials(credentialMaskFor(lane.provider)); // before anything of this lane can reach the client

    if (lane.provider.protocol === call.protocol) {
      const forwarded = await forward(gateway, req, call, lane, raw, json, signal).catch((error: unknown) => {
        // An upstream of the protocol without its count endpoint (a compatible server, the demo):
        // the count is only advice, so it becomes an estimate that says so.
        if (error instanceof GatewayFailure && error.error.status === 404) return undefined;
        throw error;
      });
      if (forwarded !== undefined) return answer(client, call, forwarded, 'upstream', lane, line);
      return answer(client, call, tokensInBytes(raw.length), 'estimate', lane, line);
    }
    const chatBody = checkRequestJson(asChatBody(call.protocol, json), ingress.validateRequest);
    let request: ChatRequest;
    try {
      // Nulls mean absent to a codec, as on the chat path (handle-chat.ts).
      request = ingress.codec.decodeRequest(withoutAbsentNulls(chatBody, call.protocol), call.pathModel === undefined ? {} : { pathModel: call.pathModel });
    } catch (error) {
      // Content no other protocol can carry (a server tool, a document) would be refused on a chat
      // hop; a count is only advice, so it becomes an estimate from the request's size instead.
      if (!(error instanceof GatewayFailure) || error.error.status !== 400) throw error;
      return answer(client, call, tokensInBytes(raw.length), 'estimate', lane, line);
    }
    const counted = await countOnLane(gateway, lane, request, signal);
    return answer(client, call, counted ?? estimateInputTokens(request), counted === undefined ? 'estimate' : 'upstream', lane, line);
  } catch (error) {
    if (res.destroyed) return;
    const failure = error instanceof GatewayFailure ? error.error : gatewayError('server', 'internal gateway error', { code: 'internal_error' });
    if (!(error instanceof GatewayFailure)) gateway.log.error({ err: error, requestId: call.requestId }, 'unexpected count_tokens failure');
    line.errorKind = failure.kind;
    if (failure.code !== undefined && failure.code !== null) line.errorCode = failure.code;
    // Answered before the body was read (no key, no room for it): the connection is then closed, as for chat.
    client.sendError(ingress.codec, failure, bodyRead ? undefined : closeUnread(req));
  } finally {
    hold.release();
  }
}

/** A lane of the client's protocol first (its count is exact and untranslated), then one whose provider can count, then the first. */
function pickLane(lanes: readonly ModelRoute[], protocol: CountingProtocol): ModelRoute {
  const same = lanes.find((l) => l.provider.protocol === protocol);
  const counting = lanes.find((l) => protocolDefinition(l.provider.protocol).upstreamOperations.includes('count_tokens'));
  return same ?? counting ?? (lanes[0] as ModelRoute);
}

/** The count request as a chat request the codecs read: Anthropic's lacks max_tokens, Gemini's may wrap it. */
function asChatBody(protocol: CountingProtocol, json: Record<string, unknown>): Record<string, unknown> {
  if (protocol === 'anthropic') return { max_tokens: 1, ...json, stream: false };
  const inner = json.generateContentRequest;
  return inner !== null && typeof inner === 'object' ? (inner as Record<string, unknown>) : json;
}

/** Same protocol: the client's count request goes to the lane's count endpoint with only the model replaced. */
async function forward(
  gateway: Gateway,
  req: IncomingMessage,
  call: CountCall,
  lane: ModelRoute,
  raw: Buffer,
  json: Record<string, unknown>,
  signal: AbortSignal,
): Promise<number> {
  let path: string;
  let body: Buffer | string;
  if (call.protocol === 'anthropic') {
    path = '/v1/messages/count_tokens';
    body = replaceTopLevelString(raw, 'model', lane.upstreamModel);
  } else {
    path = `/v1beta/models/${encodeURIComponent(lane.upstreamModel)}:countTokens`;
    const inner = json.generateContentRequest;
    // A wrapped request names its model as a resource: it must be the lane's too.
    body =
      inner !== null && typeof inner === 'object'
        ? JSON.stringify({ ...json, generateContentRequest: { ...inner, model: `models/${lane.upstreamModel}` } })
        : raw;
  }
  const answerBody = await post(gateway, lane, path, body, forwardedClientHeaders(req.headers, INGRESS[call.protocol].forwardedHeaders), signal, true);
  const count = call.protocol === 'anthropic' ? answerBody.input_tokens : answerBody.totalTokens;
  if (typeof count !== 'number')
    throw new GatewayFailure(
      gatewayError('server', `upstream ${lane.provider.name} answered a count without one`, { status: 502, code: 'bad_upstream_response' }),
    );
  return count;
}

/** Another protocol: the lane's own count endpoint, if it has one; undefined (an estimate) otherwise or when it fails. */
async function countOnLane(gateway: Gateway, lane: ModelRoute, request: ChatRequest, signal: AbortSignal): Promise<number | undefined> {
  // The lane protocol's own count endpoint, as its definition declares (protocols/<id>/count-endpoint.ts).
  const endpoint = protocolDefinition(lane.provider.protocol).countEndpoint?.(request, { model: lane.upstreamModel, defaultMaxTokens: lane.defaultMaxTokens });
  if (endpoint === undefined) return undefined;
  try {
    return endpoint.count(await post(gateway, lane, endpoint.path, JSON.stringify(endpoint.body), {}, signal, false));
  } catch (error) {
    if (signal.aborted && !(error instanceof GatewayFailure)) throw error;
    gateway.log.debug({ lane: lane.name, err: error }, 'count endpoint failed; answering an estimate');
    return undefined;
  }
}

async function post(
  gateway: Gateway,
  lane: ModelRoute,
  path: string,
  body: Buffer | string,
  forwardHeaders: Record<string, string>,
  signal: AbortSignal,
  relayErrors: boolean,
): Promise<Record<string, unknown>> {
  const upstream = await sendUpstream(gateway.dispatchers.forConnectTimeout(lane.timeouts.connectMs), {
    provider: lane.provider,
    path,
    body,
    forwardHeaders,
    stream: false,
    signal,
    headersTimeoutMs: lane.timeouts.firstByteMs,
    idleTimeoutMs: lane.timeouts.idleMs,
  });
  const text = (await readUpstreamBody(upstream.body, MAX_COUNT_ANSWER_BYTES)).toString('utf8');
  if (upstream.status >= 400) {
    // Decoded and classified as a chat attempt's error is (attempt-failure.ts), when it is relayed.
    const codec = codecFor(lane.provider.protocol);
    const error = isUpstreamCredentialFailure(upstream.status)
      ? upstreamCredentialFailure(lane.provider, upstream.status)
      : codec === undefined || !relayErrors
        ? gatewayError('server', `upstream ${lane.provider.name} answered ${upstream.status}`, { status: 502, code: 'bad_upstream_response' })
        : classifyUpstreamError(
            lane.provider,
            codec.decodeError({
              status: upstream.status,
              bodyText: redactCredential(lane.provider, text),
              headers: upstream.headers,
              retryAfterSeconds: retryAfterSeconds(upstream.headers),
            }),
          );
    throw new GatewayFailure(error);
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new GatewayFailure(
      gatewayError('server', `upstream ${lane.provider.name} answered with a body that is not JSON`, { status: 502, code: 'bad_upstream_response' }),
    );
  }
}

function answer(client: ClientResponse, call: CountCall, count: number, how: 'upstream' | 'estimate', lane: ModelRoute, line: CountLine): void {
  line.count = how;
  const estimated = how === 'estimate' ? { estimated: true } : {};
  const body = call.protocol === 'anthropic' ? { input_tokens: count, ...estimated } : { totalTokens: count, ...estimated };
  client.sendBody(200, { 'content-type': 'application/json', 'x-gateway-lane': lane.name, [TOKEN_COUNT_HEADER]: how }, JSON.stringify(body));
}
