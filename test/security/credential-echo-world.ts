// A gateway with one lane per protocol in front of the scriptable mock upstream, and an upstream
// reply for each place an upstream can echo the credential it received: a response header, the
// answer's text whole, the text cut between two network reads, the text cut between two stream
// events (two parts of a non-stream answer), an error body. Replies are real wire format, written
// by the codecs' own encoders.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '../../server/app/start-gateway.ts';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { EVENTSTREAM_HEADERS } from '../../server/framing/eventstream-frame.ts';
import { SSE_HEADERS } from '../../server/framing/sse-format.ts';
import { WireBatch } from '../../server/framing/wire-chunks.ts';
import { gatewayError, type ChatResponse, type ProtocolId, type StreamEvent } from '../../server/ir/index.ts';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';
import { createLogger } from '../../server/shared/logger.ts';
import { codecFor } from '../../server/protocols/registry.ts';
import { startMockUpstream, type MockUpstream, type RecordedRequest, type ScriptedReply } from '../support/mock-upstream.ts';

export const PLACES = ['header', 'body', 'split-read', 'split-event', 'error'] as const;
export type Place = (typeof PLACES)[number];

/** Catalog provider per protocol, and what its base URL needs after the mock's origin. */
const PROVIDER: Record<ProtocolId, { name: string; suffix: string }> = {
  openai: { name: 'openai', suffix: '/v1' },
  responses: { name: 'openai-responses', suffix: '/v1' },
  anthropic: { name: 'anthropic', suffix: '' },
  gemini: { name: 'gemini', suffix: '' },
  bedrock: { name: 'bedrock', suffix: '' }, // an api_key on a sigv4 provider is a Bedrock API key, sent as Bearer
  cohere: { name: 'cohere', suffix: '' },
};

/** The header each provider's auth style carries the credential in. */
const AUTH_HEADER: Record<ProtocolId, string> = {
  openai: 'authorization',
  responses: 'authorization',
  anthropic: 'x-api-key',
  gemini: 'x-goog-api-key',
  bedrock: 'authorization',
  cohere: 'authorization',
};

export interface EchoWorld {
  readonly gateway: RunningGateway;
  readonly upstream: MockUpstream;
  readonly url: string;
  /** Per egress protocol, the operator's key (random, so no 8-character piece of it occurs by chance). */
  readonly keys: Record<ProtocolId, string>;
  /** Credentials the mock really echoed, per request: the test's scan only means something if they were sent. */
  readonly echoed: string[];
  /** Queues the reply that echoes the credential at `place`, for the next request. */
  echoNext(egress: ProtocolId, place: Place, stream: boolean): void;
  close(): Promise<void>;
}

export const ANSWER_TEXT = 'The key is ';

export async function startEchoWorld(): Promise<EchoWorld> {
  const upstream = await startMockUpstream();
  const keys = Object.fromEntries(PROTOCOL_IDS.map((p) => [p, `sk-${randomBytes(24).toString('base64url')}`])) as Record<ProtocolId, string>;
  const dir = mkdtempSync(join(tmpdir(), 'gateway-echo-'));
  writeFileSync(
    join(dir, 'providers.yaml'),
    PROTOCOL_IDS.map((p) => `${PROVIDER[p].name}: { base_url: ${upstream.url}${PROVIDER[p].suffix} }`).join('\n') + '\n',
  );
  writeFileSync(
    join(dir, 'config.yaml'),
    [
      'listen: 127.0.0.1:0',
      'admin_listen: 127.0.0.1:0',
      'catalog: ./providers.yaml',
      'log_level: silent',
      'breaker: { consecutive_failures: 100000, min_requests: 100000, rate_limit_cooldown_ms: 0, max_rate_limit_cooldown_ms: 0, config_fault_cooldown_ms: 0 }',
      'providers:',
      ...PROTOCOL_IDS.map((p) => `  ${PROVIDER[p].name}: { api_key: { env: KEY_${p.toUpperCase()} } }`),
      'models:',
      ...PROTOCOL_IDS.map((p) => `  m-${p}: { provider: ${PROVIDER[p].name}, model: upstream-${p} }`),
    ].join('\n') + '\n',
  );
  const env = Object.fromEntries(PROTOCOL_IDS.map((p) => [`KEY_${p.toUpperCase()}`, keys[p]]));
  const gateway = await startGateway(loadConfigFile(join(dir, 'config.yaml'), { env }), { log: createLogger('silent'), workers: 1 });
  const echoed: string[] = [];
  return {
    gateway,
    upstream,
    url: gateway.dataUrl,
    keys,
    echoed,
    echoNext(egress, place, stream) {
      upstream.enqueue((request) => {
        const credential = credentialIn(request, egress);
        echoed.push(credential);
        return echoReply(egress, place, stream, credential);
      });
    },
    async close() {
      await gateway.close();
      await upstream.close();
    },
  };
}

/** The credential as the upstream received it, without its scheme. */
function credentialIn(request: RecordedRequest, egress: ProtocolId): string {
  const value = request.headers[AUTH_HEADER[egress]];
  if (typeof value !== 'string') throw new Error(`the gateway sent no ${AUTH_HEADER[egress]} to the ${egress} upstream`);
  return value.replace(/^Bearer /, '');
}

export function echoReply(egress: ProtocolId, place: Place, stream: boolean, key: string): ScriptedReply {
  const codec = codecFor(egress)!;
  const half = key.length >> 1;
  if (place === 'error') {
    const envelope = codec.encodeError(gatewayError('invalid_request', `invalid request for key ${key}`, { status: 400, code: 'invalid_request' }));
    return { status: envelope.status, headers: { 'content-type': 'application/json', ...envelope.headers }, raw: envelope.body };
  }
  const parts =
    place === 'header' ? ['no key here'] : place === 'split-event' ? [`${ANSWER_TEXT}${key.slice(0, half)}`, `${key.slice(half)}.`] : [`${ANSWER_TEXT}${key}.`];
  const headers: Record<string, string> = place === 'header' ? { 'x-request-id': `Bearer ${key}` } : {};
  if (!stream) {
    const body = JSON.stringify(codec.encodeResponse(answer(egress, parts), { streamUsage: true }).body);
    if (place !== 'split-read') return { headers, json: JSON.parse(body) as unknown };
    const at = body.indexOf(key) + half;
    return { headers: { 'content-type': 'application/json' }, events: [body.slice(0, at), body.slice(at)], delayMs: 15 };
  }
  const encoder = codec.createStreamEncoder({ streamUsage: true, jsonArrayStream: false });
  const events = streamEvents(egress, parts)
    .map((event) => {
      const batch = new WireBatch();
      batch.add(encoder.encode(event));
      return batch.take();
    })
    .filter((bytes) => bytes.length > 0);
  const type = egress === 'bedrock' ? EVENTSTREAM_HEADERS : SSE_HEADERS;
  if (place !== 'split-read') return { headers: { ...type, ...headers }, events: events.map((e) => Buffer.from(e)), delayMs: 2 };
  const all = Buffer.concat(events.map((e) => Buffer.from(e)));
  const at = all.indexOf(key) + half;
  return { headers: { ...type }, events: [all.subarray(0, at), all.subarray(at)], delayMs: 15 };
}

function answer(egress: ProtocolId, parts: string[]): ChatResponse {
  return {
    id: `resp_${egress}`,
    model: `upstream-${egress}`,
    content: parts.map((text) => ({ type: 'text' as const, text })),
    finish: { reason: 'stop', raw: null },
    usage: { inputTokens: 5, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
  };
}

function streamEvents(egress: ProtocolId, parts: string[]): StreamEvent[] {
  const r = answer(egress, parts);
  return [
    { type: 'message_start', id: r.id, model: r.model },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    ...parts.map((text): StreamEvent => ({ type: 'block_delta', index: 0, delta: { type: 'text', text } })),
    { type: 'block_stop', index: 0 },
    { type: 'finish', finish: r.finish },
    { type: 'usage', usage: r.usage! },
    { type: 'message_stop' },
  ];
}

/** One raw request in the ingress protocol's own shape; the path says whether it streams where the protocol puts that there. */
export function rawRequest(ingress: ProtocolId, model: string, stream: boolean): { path: string; body: string } {
  const text = 'say it';
  switch (ingress) {
    case 'openai':
      return { path: '/v1/chat/completions', body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: text }] }) };
    case 'responses':
      return { path: '/v1/responses', body: JSON.stringify({ model, stream, input: text }) };
    case 'anthropic':
      return { path: '/v1/messages', body: JSON.stringify({ model, stream, max_tokens: 64, messages: [{ role: 'user', content: text }] }) };
    case 'gemini':
      return {
        path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] }),
      };
    case 'bedrock':
      return {
        path: `/model/${model}/${stream ? 'converse-stream' : 'converse'}`,
        body: JSON.stringify({ messages: [{ role: 'user', content: [{ text }] }] }),
      };
    case 'cohere':
      return { path: '/v2/chat', body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: text }] }) };
  }
}
