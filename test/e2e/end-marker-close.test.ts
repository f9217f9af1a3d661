// A client of any of the six protocols that closes the connection as soon as its protocol's end
// marker has arrived (what openai-python does after `[DONE]`) has its whole answer: the request is
// recorded as a success, not `client_gone`. Each client reads the gateway's real stream and closes
// at the marker: `[DONE]`, `response.completed`, `message_stop`, Gemini's chunk with
// `finishReason`, Bedrock's `metadata` frame, Cohere's `message-end`; through a lane of its own
// protocol (the relayed bytes) and through an OpenAI lane (translated).
import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openaiChatStreamEvents } from '../../server/demo/openai-replies.ts';
import { decodeFrame } from '../../server/framing/eventstream-frame.ts';
import { costMicrocents } from '../../server/governance/cost.ts';
import { EventStreamSplitter } from '../../server/framing/eventstream-splitter.ts';
import type { ProtocolId } from '../../server/ir/index.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { wireStream } from '../support/protocol-wire.ts';
import { RecordCollector } from '../support/record-collector.ts';

let h: Harness;
const records = new RecordCollector();
const PROVIDER: Record<ProtocolId, string> = {
  openai: 'openai',
  responses: 'openai-responses',
  anthropic: 'anthropic',
  gemini: 'gemini',
  bedrock: 'bedrock',
  cohere: 'cohere',
};
beforeAll(async () => {
  // `same-<protocol>`: a lane speaking the client's own protocol (the same-protocol relay).
  const same = (Object.keys(PROVIDER) as ProtocolId[]).map((p) => `  same-${p}: { provider: ${PROVIDER[p]}, model: same-${p}-up }\n`).join('');
  h = await startHarness({ observers: [records], sixProtocols: true, extraModelsYaml: same });
});
afterAll(() => h.close());
beforeEach(() => {
  h.upstream.reset();
  records.clear();
});

const user = [{ role: 'user', content: 'hi' }];
/** Path and body of a streaming request for model `gpt` (an OpenAI lane) in each protocol. */
const REQUESTS: Record<ProtocolId, { path: string; body: unknown }> = {
  openai: { path: '/v1/chat/completions', body: { model: 'gpt', messages: user, stream: true } },
  responses: { path: '/v1/responses', body: { model: 'gpt', input: 'hi', stream: true } },
  anthropic: { path: '/v1/messages', body: { model: 'gpt', max_tokens: 50, messages: user, stream: true } },
  gemini: { path: '/v1beta/models/gpt:streamGenerateContent?alt=sse', body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] } },
  bedrock: { path: '/model/gpt/converse-stream', body: { messages: [{ role: 'user', content: [{ text: 'hi' }] }] } },
  cohere: { path: '/v2/chat', body: { model: 'gpt', messages: user, stream: true } },
};

/** Has the protocol's end marker (a whole event or frame) arrived in `received`? */
function endMarkerIn(protocol: ProtocolId, received: Buffer): boolean {
  if (protocol === 'bedrock') {
    const splitter = new EventStreamSplitter();
    return splitter.push(received).some((frame) => decodeFrame(frame).headers[':event-type'] === 'metadata');
  }
  const text = received.toString('utf8');
  const marker = { openai: 'data: [DONE]', responses: '"response.completed"', anthropic: '"message_stop"', gemini: '"finishReason"', cohere: '"message-end"' }[
    protocol
  ];
  const at = text.indexOf(marker);
  return at !== -1 && /\r?\n\r?\n/.test(text.slice(at));
}

const CASES = (Object.keys(REQUESTS) as ProtocolId[]).flatMap(
  (p) =>
    [
      [p, 'translated (OpenAI lane)'],
      [p, 'same protocol'],
    ] as const,
);

it.each(CASES)('%s client, %s, closing at its end marker: a success, not client_gone', async (protocol, path_) => {
  const sameProtocol = path_ === 'same protocol';
  if (sameProtocol) {
    const s = wireStream(protocol, 'whole answer', `same-${protocol}-up`);
    h.upstream.enqueue({ headers: s.headers, events: [...s.beforeContent, ...s.fromContent], lingerMs: 400 });
  } else {
    h.upstream.enqueue({
      events: openaiChatStreamEvents({ id: 'chatcmpl-e', model: 'gpt-4.1-mini', text: 'whole answer' }, { includeUsage: true, textPieces: 2 }),
      lingerMs: 400,
    });
  }
  const model = sameProtocol ? `same-${protocol}` : 'gpt';
  const path = REQUESTS[protocol].path.replace('gpt', model);
  const body = JSON.parse(JSON.stringify(REQUESTS[protocol].body).replace('"gpt"', JSON.stringify(model))) as unknown;
  const { status, requestId } = await new Promise<{ status: number | undefined; requestId: string }>((resolve, reject) => {
    const req = request(`${h.url}${path}`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let received = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        if (!endMarkerIn(protocol, received)) return;
        req.destroy(); // closes the connection, before the upstream has ended its body
        resolve({ status: res.statusCode, requestId: String(res.headers['x-request-id']) });
      });
      res.on('end', () => reject(new Error(`the stream ended without its end marker: ${received.toString('utf8')}`)));
    });
    req.on('error', () => {});
    req.end(JSON.stringify(body));
  });
  expect(status).toBe(200);
  const record = await records.forRequest(requestId, 5000);
  await vi.waitFor(() => expect(h.upstream.requests[0]?.abandoned).toBe(true), { timeout: 2000 });
  expect(record).toMatchObject({ status: 200, clientGone: false, lane: model });
  expect(record.attempts.map((a) => a.outcome)).toEqual(['success']);
  expect(record.usage).toMatchObject({ outputTokens: expect.any(Number) });
});

describe('under governance', () => {
  let g: Harness;
  beforeAll(async () => {
    g = await startHarness({
      extraModelsYaml: '  priced: { provider: openai, model: priced-upstream, price: { input: 2, output: 8 } }\n',
      extraYaml: 'db_path: ./gateway.db\ngovernance: on\n',
    });
  });
  afterAll(() => g.close());

  it('a stream the client closed right after [DONE] is settled on its usage, not refunded', async () => {
    const created = await fetch(`${g.adminUrl}/api/v1/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'closer', budget_cents: 1000 }),
    });
    const key = (await created.json()) as { id: string; secret: string };
    g.upstream.enqueue({
      events: openaiChatStreamEvents(
        { id: 'chatcmpl-g', model: 'priced-upstream', text: 'paid for', usage: { prompt_tokens: 1000, completion_tokens: 100 } },
        { includeUsage: true },
      ),
      lingerMs: 400,
    });
    await new Promise<void>((resolve, reject) => {
      const req = request(
        `${g.url}/v1/chat/completions`,
        { method: 'POST', agent: false, headers: { 'content-type': 'application/json', authorization: `Bearer ${key.secret}` } },
        (res) => {
          let received = Buffer.alloc(0);
          res.on('data', (chunk: Buffer) => {
            received = Buffer.concat([received, chunk]);
            if (!endMarkerIn('openai', received)) return;
            req.destroy();
            resolve();
          });
          res.on('end', () => reject(new Error(`no [DONE]: ${received.toString('utf8')}`)));
        },
      );
      req.on('error', () => {});
      req.end(JSON.stringify({ model: 'priced', stream: true, messages: [{ role: 'user', content: 'hi' }] }));
    });
    await vi.waitFor(() => expect(g.upstream.requests[0]?.abandoned).toBe(true), { timeout: 2000 });
    const lane = g.gateway.routing.router('priced')!.members[0]!.lane;
    const real = costMicrocents({ inputTokens: 1000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 }, lane.price!);
    await vi.waitFor(() => expect(g.gateway.governance!.listKeys().find((k) => k.id === key.id)!.spentMicrocents).toBe(real), { timeout: 2000 });
  });
});
