// POST /v1/messages/count_tokens (Claude Code asks it before each turn) and Gemini's :countTokens,
// through the official SDKs: forwarded on a lane of the client's protocol, counted by the lane's
// own provider on another protocol when it has a count endpoint, else an estimate that says so.
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIAL_MARKER } from '../../server/gateway/credential-mask.ts';
import { LANE_KEY_ENV, SIX_LANE_ENV } from '../support/six-lane-gateway.ts';
import { startSixLaneHarness, type SixLaneHarness } from '../support/six-lane-harness.ts';

let harness: SixLaneHarness;
let anthropic: Anthropic;
let gemini: GoogleGenAI;

beforeAll(async () => {
  harness = await startSixLaneHarness();
  anthropic = new Anthropic({ apiKey: 'k', baseURL: harness.url, maxRetries: 0 });
  gemini = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: harness.url } });
});
afterAll(() => harness.close());

const MESSAGES = [{ role: 'user' as const, content: 'How many tokens is this sentence, roughly speaking?' }];
const TOOLS = [{ name: 'read_file', description: 'Read a file', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } } }];
const sent = () => harness.lastRequest();
/** The operator's upstream credential on the keyed lanes. */
const UPSTREAM_KEY = SIX_LANE_ENV[LANE_KEY_ENV] as string;

async function claudeCount(model: string) {
  const before = harness.upstream.requests.length;
  const { data, response } = await anthropic.messages.countTokens({ model, system: 'Be brief.', messages: MESSAGES, tools: TOOLS }).withResponse();
  return {
    count: data.input_tokens,
    how: response.headers.get('x-gateway-token-count'),
    raw: data as unknown as Record<string, unknown>,
    upstreamCalls: harness.upstream.requests.length - before,
  };
}

describe('anthropic messages.countTokens', () => {
  it('an Anthropic lane: forwarded to its count_tokens with only the model replaced', async () => {
    harness.upstream.enqueue({ json: { input_tokens: 42 } });
    const out = await claudeCount('m-anthropic');
    expect(out).toMatchObject({ count: 42, how: 'upstream', upstreamCalls: 1 });
    expect(out.raw.estimated).toBeUndefined();
    expect(sent().path).toBe('/v1/messages/count_tokens');
    expect(sent().json).toMatchObject({ model: 'upstream-anthropic', system: 'Be brief.', messages: MESSAGES });
    expect(sent().json).not.toHaveProperty('max_tokens');
    expect(sent().headers['x-api-key']).toBe('upstream-key');
  });

  it("a Gemini lane: translated and counted by Gemini's countTokens", async () => {
    harness.upstream.enqueue({ json: { totalTokens: 17 } });
    const out = await claudeCount('m-gemini');
    expect(out).toMatchObject({ count: 17, how: 'upstream' });
    expect(sent().path).toBe('/v1beta/models/upstream-gemini:countTokens');
    const request = (sent().json as { generateContentRequest: Record<string, unknown> }).generateContentRequest;
    expect(request.model).toBe('models/upstream-gemini');
    expect(request.systemInstruction).toEqual({ parts: [{ text: 'Be brief.' }] });
    expect(JSON.stringify(request.tools)).toContain('read_file');
  });

  it("a Responses lane: counted by OpenAI's /v1/responses/input_tokens", async () => {
    harness.upstream.enqueue({ json: { object: 'response.input_tokens', input_tokens: 23 } });
    const out = await claudeCount('m-responses');
    expect(out).toMatchObject({ count: 23, how: 'upstream' });
    expect(sent().path).toBe('/v1/responses/input_tokens');
    expect(sent().json).toMatchObject({ model: 'upstream-responses' });
    expect(JSON.stringify((sent().json as { input: unknown }).input)).toContain('Be brief.');
    expect(sent().json).not.toHaveProperty('stream');
  });

  it("a Bedrock lane: counted by Bedrock's CountTokens, signed like any Bedrock call", async () => {
    harness.upstream.enqueue({ json: { inputTokens: 57 } });
    const out = await claudeCount('m-bedrock');
    expect(out).toMatchObject({ count: 57, how: 'upstream', upstreamCalls: 1 });
    expect(sent().path).toBe('/model/upstream-bedrock/count-tokens');
    const converse = (sent().json as { input: { converse: Record<string, unknown> } }).input.converse;
    expect(converse.system).toEqual([{ text: 'Be brief.' }]);
    expect(JSON.stringify(converse.toolConfig)).toContain('read_file');
    expect(String(sent().headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 /);
  });

  it('a count endpoint that fails (an OpenAI-compatible provider without one): an estimate', async () => {
    harness.upstream.enqueue({ status: 404, json: { error: { message: 'Invalid URL', type: 'invalid_request_error' } } });
    const out = await claudeCount('m-openai');
    expect(out).toMatchObject({ how: 'estimate', upstreamCalls: 1 });
    expect(out.raw.estimated).toBe(true);
  });

  it('an Anthropic-protocol lane without a count endpoint (404): an estimate that says it is one', async () => {
    harness.upstream.enqueue({
      status: 404,
      json: { type: 'error', error: { type: 'not_found_error', message: 'Invalid URL (POST /v1/messages/count_tokens)' } },
    });
    const out = await claudeCount('m-anthropic');
    expect(out).toMatchObject({ how: 'estimate', upstreamCalls: 1 });
    expect(out.raw.estimated).toBe(true);
    expect(out.count).toBeGreaterThan(0);
  });

  it('a Cohere lane (no count endpoint): an estimate that says it is one, nothing sent upstream', async () => {
    const out = await claudeCount('m-cohere');
    expect(out.how).toBe('estimate');
    expect(out.raw.estimated).toBe(true);
    expect(out.upstreamCalls).toBe(0);
    expect(out.count).toBeGreaterThan(10);
    expect(out.count).toBeLessThan(200);
  });
  it('the model in the path (/{model}/v1/messages/count_tokens), as for /{model}/v1/messages', async () => {
    harness.upstream.enqueue({ json: { input_tokens: 5 } });
    const viaPath = new Anthropic({ apiKey: 'k', baseURL: `${harness.url}/m-anthropic`, maxRetries: 0 });
    expect((await viaPath.messages.countTokens({ model: 'ignored-by-the-path', messages: MESSAGES })).input_tokens).toBe(5);
    expect(sent().json).toMatchObject({ model: 'upstream-anthropic' });
  });

  it('content no other protocol can carry (a server tool) gives an estimate, not a 400', async () => {
    const before = harness.upstream.requests.length;
    const { data, response } = await anthropic.messages
      .countTokens({
        model: 'm-gemini',
        messages: MESSAGES,
        tools: [{ type: 'web_search_20250305', name: 'web_search' }],
      })
      .withResponse();
    expect(response.headers.get('x-gateway-token-count')).toBe('estimate');
    expect(data.input_tokens).toBeGreaterThan(0);
    expect(harness.upstream.requests.length).toBe(before);
  });

  it('a malformed request is still a 400', async () => {
    await expect(anthropic.messages.countTokens({ model: 'm-gemini', messages: [{ role: 'robot' as 'user', content: 'x' }] })).rejects.toBeInstanceOf(
      Anthropic.BadRequestError,
    );
  });

  it("an unknown model: 404 in Anthropic's shape", async () => {
    await expect(anthropic.messages.countTokens({ model: 'nope', messages: MESSAGES })).rejects.toBeInstanceOf(Anthropic.NotFoundError);
  });

  it("no model: 400 in Anthropic's shape naming the field, as on every other route", async () => {
    const error = await anthropic.messages.countTokens({ model: '', messages: MESSAGES }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).message).toMatch(/model: a model name is required/);
  });

  it("an upstream error that echoes the operator's key reaches the client masked", async () => {
    harness.upstream.enqueue({
      status: 400,
      json: { type: 'error', error: { type: 'invalid_request_error', message: 'request with key upstream-key refused' } },
    });
    const error = await anthropic.messages.countTokens({ model: 'm-anthropic', messages: MESSAGES }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    const body = JSON.stringify((error as InstanceType<typeof Anthropic.BadRequestError>).error);
    expect(body).toContain(`request with key ${CREDENTIAL_MARKER} refused`);
    expect(body).not.toContain('upstream-key');
    expect((error as InstanceType<typeof Anthropic.APIError>).message).not.toContain(UPSTREAM_KEY);
  });

  it('an upstream error on the same protocol reaches the client in its shape', async () => {
    harness.upstream.enqueue({
      status: 429,
      headers: { 'retry-after': '3' },
      json: { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
    });
    const error = await anthropic.messages.countTokens({ model: 'm-anthropic', messages: MESSAGES }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
  });

  it("the upstream refusing the gateway's credential is a 502 the client cannot take for its own key", async () => {
    harness.upstream.enqueue({ status: 401, json: { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${UPSTREAM_KEY}` } } });
    const error = await anthropic.messages.countTokens({ model: 'm-anthropic', messages: MESSAGES }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
    expect((error as InstanceType<typeof Anthropic.APIError>).message).toContain("refused the gateway's credential");
    expect(JSON.stringify((error as InstanceType<typeof Anthropic.APIError>).error)).not.toContain(UPSTREAM_KEY);
  });
});

describe('@google/genai models.countTokens', () => {
  it('a Gemini lane: forwarded to its countTokens', async () => {
    harness.upstream.enqueue({ json: { totalTokens: 11, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 11 }] } });
    const out = await gemini.models.countTokens({ model: 'm-gemini', contents: 'Count me.' });
    expect(out.totalTokens).toBe(11);
    expect(sent().path).toBe('/v1beta/models/upstream-gemini:countTokens');
    expect(JSON.stringify(sent().json)).toContain('Count me.');
  });

  it("an Anthropic lane: counted by Anthropic's count_tokens, without max_tokens", async () => {
    harness.upstream.enqueue({ json: { input_tokens: 31 } });
    const out = await gemini.models.countTokens({ model: 'm-anthropic', contents: 'Count me.' });
    expect(out.totalTokens).toBe(31);
    expect(sent().path).toBe('/v1/messages/count_tokens');
    expect(sent().json).toEqual({ model: 'upstream-anthropic', messages: [{ role: 'user', content: [{ type: 'text', text: 'Count me.' }] }] });
  });

  it('a Cohere lane: an estimate, marked in the header', async () => {
    const before = harness.upstream.requests.length;
    const raw = await fetch(`${harness.url}/v1beta/models/m-cohere:countTokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': 'k' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Count me, please.' }] }] }),
    });
    expect(raw.headers.get('x-gateway-token-count')).toBe('estimate');
    expect(await raw.json()).toEqual({ totalTokens: expect.any(Number), estimated: true });
    expect(harness.upstream.requests.length).toBe(before);
    const viaSdk = await gemini.models.countTokens({ model: 'm-cohere', contents: 'Count me, please.' });
    expect(viaSdk.totalTokens).toBeGreaterThan(0);
  });
});
