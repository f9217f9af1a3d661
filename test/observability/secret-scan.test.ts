// Known secrets (upstream API keys, virtual keys, the admin token, the OTLP header token, a key a
// client made up) are sent through every path: success, streams, translation, every carrier,
// upstream errors that echo the operator's key (before and after commit), governance refusals,
// the admin API. Then every output is scanned: the log (at trace level), the request log line,
// /metrics, the OTLP payloads, the request records, and every answer the clients got.
import { Writable } from 'node:stream';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicErrorBody, anthropicStreamEvents } from '../../server/demo/anthropic-replies.ts';
import { openaiChatStreamEvents, openaiStreamErrorEvent } from '../../server/demo/openai-replies.ts';
import { createLogger } from '../../server/shared/logger.ts';
import { startHarness, UPSTREAM_ANTHROPIC_KEY, UPSTREAM_OPENAI_KEY, type Harness } from '../support/gateway-harness.ts';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.ts';
import { RecordCollector } from '../support/record-collector.ts';

const ADMIN_TOKEN = 'admin-token-secret-8c1f2e9d';
const OTLP_TOKEN = 'otlp-bearer-secret-3b7a55';
const MADE_UP_KEY = 'gwk_made-up-client-secret-91d0';

const logLines: string[] = [];
const answers: string[] = [];
const records = new RecordCollector();
const virtualKeys: string[] = [];
let h: Harness;
let receiver: OtlpReceiver;
let metricsText = '';

/** Keeps what a client saw: status, headers and body. */
async function keep(res: Response): Promise<Response> {
  const body = await res.text();
  answers.push(`${res.status} ${JSON.stringify([...res.headers])} ${body}`);
  return res;
}

const openaiError = (message: string) => ({ error: { message, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  h = await startHarness({
    env: { GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, OTLP_TOKEN },
    log: createLogger('trace', sink),
    observers: [records],
    extraYaml: `db_path: ./gateway.db\ngovernance: on\npools:\n  chat: { members: [ { model: gpt, weight: 10 }, { model: claude, weight: 1 } ] }\notlp: { endpoint: ${receiver.url}, headers: { authorization: { env: OTLP_TOKEN } } }\n`,
  });
  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${h.adminUrl}/api/v1/admin${path}`, { ...init, headers: { 'x-admin-token': ADMIN_TOKEN, 'content-type': 'application/json' } });
  const createKey = async (body: Record<string, unknown>) => {
    const created = (await (await admin('/keys', { method: 'POST', body: JSON.stringify(body) })).json()) as { id: string; secret: string };
    virtualKeys.push(created.secret);
    return created;
  };
  const good = await createKey({ name: 'good' });
  const limited = await createKey({ rpm: 1 });
  const poor = await createKey({ budget_cents: 1 });
  const revoked = await createKey({});
  await keep(await admin(`/keys/${revoked.id}`, { method: 'DELETE' }));
  await keep(await admin('/keys'));
  await keep(await admin(`/keys/${good.id}`));
  await keep(await admin('/info'));
  await keep(await fetch(`${h.adminUrl}/api/v1/admin/keys`, { headers: { 'x-admin-token': `${ADMIN_TOKEN}-wrong` } }));

  const client = new OpenAI({ apiKey: good.secret, baseURL: `${h.url}/v1`, maxRetries: 0 });
  const chat = (model: string, secret = good.secret, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, ...headers },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }),
    }).then(keep);

  // Successes: same protocol, stream, translated, every key carrier.
  await chat('gpt');
  await chat('gpt', good.secret, { stream: true });
  await chat('claude');
  await chat('claude', good.secret, { stream: true, stream_options: { include_usage: true } });
  const completion = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'sdk' }] });
  answers.push(JSON.stringify(completion));
  const anthropic = new Anthropic({ apiKey: good.secret, baseURL: h.url, maxRetries: 0 });
  answers.push(JSON.stringify(await anthropic.messages.create({ model: 'claude', max_tokens: 20, messages: [{ role: 'user', content: 'x' }] })));
  await keep(
    await fetch(`${h.url}/v1beta/models/gpt:generateContent?key=${good.secret}`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }),
    }),
  );
  await keep(
    await fetch(`${h.url}/v1beta/models/claude:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': good.secret },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }),
    }),
  );

  // Upstreams that echo the operator's key: 401 (becomes a 502), 400 relayed, 500, on both protocols.
  h.upstream.enqueue({ status: 401, json: openaiError(`Incorrect API key provided: ${UPSTREAM_OPENAI_KEY}`) });
  await chat('gpt');
  h.upstream.enqueue({ status: 400, json: openaiError(`bad request for key ${UPSTREAM_OPENAI_KEY}`) });
  await chat('gpt');
  h.upstream.enqueue(
    { status: 500, json: openaiError(`internal error, key ${UPSTREAM_OPENAI_KEY}`) },
    { status: 500, json: anthropicErrorBody('api_error', `boom ${UPSTREAM_ANTHROPIC_KEY}`) },
  );
  await chat('chat');
  h.upstream.enqueue({ status: 401, json: anthropicErrorBody('authentication_error', `invalid x-api-key ${UPSTREAM_ANTHROPIC_KEY}`) });
  await chat('claude');
  h.upstream.enqueue({ status: 400, json: anthropicErrorBody('invalid_request_error', `key ${UPSTREAM_ANTHROPIC_KEY} is not allowed`) });
  await keep(
    await fetch(`${h.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': good.secret },
      body: JSON.stringify({ model: 'claude', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
    }),
  );
  // Error events in streams, before and after the first content, echoing the key.
  h.upstream.enqueue({ events: [openaiStreamErrorEvent(`stream failed for ${UPSTREAM_OPENAI_KEY}`, 'server_error', null)] });
  await chat('gpt', good.secret, { stream: true });
  h.upstream.enqueue({
    events: [
      anthropicStreamEvents({ id: 'm', model: 'claude-sonnet-4-5', text: 'partial' })[0]!,
      `event: error\ndata: ${JSON.stringify(anthropicErrorBody('overloaded_error', `overloaded, key ${UPSTREAM_ANTHROPIC_KEY}`))}\n\n`,
    ],
  });
  await chat('claude', good.secret, { stream: true });
  // After the first content, translated (the error event is re-encoded for the client).
  h.upstream.enqueue({
    events: [
      ...anthropicStreamEvents({ id: 'm', model: 'claude-sonnet-4-5', text: 'some text' }).slice(0, 4),
      `event: error\ndata: ${JSON.stringify(anthropicErrorBody('api_error', `late failure for ${UPSTREAM_ANTHROPIC_KEY}`))}\n\n`,
    ],
  });
  await chat('claude', good.secret, { stream: true });
  // After the first content, same protocol (the upstream's bytes are relayed, its error event included).
  h.upstream.enqueue({
    events: [
      ...openaiChatStreamEvents({ id: 'c', model: 'gpt-4.1-mini', text: 'some text' }, { includeUsage: false }).slice(0, 3),
      openaiStreamErrorEvent(`late failure for ${UPSTREAM_OPENAI_KEY}`, 'server_error', null),
    ],
  });
  await chat('gpt', good.secret, { stream: true });
  // A same-protocol stream that ends without its terminator after content: the gateway's own error event.
  h.upstream.enqueue({ events: openaiChatStreamEvents({ id: 'c', model: 'gpt-4.1-mini', text: 'some text' }, { includeUsage: false }).slice(0, 3) });
  await chat('gpt', good.secret, { stream: true });

  // Gateway refusals: made-up key, revoked key, rate limit, budget; bad input.
  await chat('gpt', MADE_UP_KEY);
  await keep(
    await fetch(`${h.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': MADE_UP_KEY },
      body: JSON.stringify({ model: 'claude', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
    }),
  );
  await keep(
    await fetch(`${h.url}/v1beta/models/gpt:generateContent?key=${MADE_UP_KEY}`, {
      method: 'POST',
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }] }),
    }),
  );
  await chat('gpt', revoked.secret);
  await chat('gpt', limited.secret);
  await chat('gpt', limited.secret);
  await chat('gpt', poor.secret, { max_completion_tokens: 100_000 });
  await chat('no-such-model');
  await keep(await fetch(`${h.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${good.secret}` }, body: '{not json' }));
  await keep(await fetch(`${h.url}/no/such/route?key=${good.secret}`, { headers: { authorization: `Bearer ${good.secret}` } }));

  metricsText = await (await fetch(`${h.url}/metrics`)).text();
  await h.close(); // flushes the OTLP export
}, 60_000);
afterAll(() => receiver.close());

describe('no secret in any output', () => {
  const secrets = () => ({
    UPSTREAM_OPENAI_KEY,
    UPSTREAM_ANTHROPIC_KEY,
    ADMIN_TOKEN,
    OTLP_TOKEN,
    MADE_UP_KEY,
    ...Object.fromEntries(virtualKeys.map((k, i) => [`virtual key ${i}`, k])),
  });
  const outputs = () => ({
    log: logLines.join(''),
    metrics: metricsText,
    otlp: Buffer.concat(receiver.bodies).toString('latin1'),
    records: JSON.stringify(records.records, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)),
    answers: answers.join('\n'),
  });

  it('every path ran and produced output', () => {
    expect(virtualKeys).toHaveLength(4);
    expect(records.records.length).toBeGreaterThanOrEqual(25);
    expect(logLines.filter((l) => l.includes('"msg":"request"')).length).toBe(records.records.length); // one log line per request
    expect(receiver.spans.length).toBeGreaterThanOrEqual(records.records.length);
    expect(metricsText).toContain('gateway_requests_total');
    const statuses = new Set(records.records.map((r) => r.status));
    for (const status of [200, 400, 401, 402, 404, 429, 502]) expect(statuses).toContain(status);
    // The echoing upstreams really did send the keys back (so the scan below means something).
    expect(h.upstream.requests.some((r) => JSON.stringify(r.headers).includes(UPSTREAM_OPENAI_KEY))).toBe(true);
  });

  it.each(['log', 'metrics', 'otlp', 'records', 'answers'] as const)('%s holds none of the secrets', (output) => {
    const text = outputs()[output];
    expect(text.length).toBeGreaterThan(0);
    for (const [name, secret] of Object.entries(secrets())) {
      const at = text.indexOf(secret);
      expect(at, `${name} found in ${output}: ...${text.slice(at - 100, at + 60).replace(/\n/g, ' | ')}...`).toBe(-1);
    }
  });
});
