// Bad input and failures, through a real gateway, for both ingress protocols: every answer has the
// exact status, the client's own error shape (checked against the protocol's error schema), names
// the field at fault, carries x-request-id, and never shows an upstream credential.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import validateAnthropicError from '../../generated/validators/anthropic-error.js';
import validateOpenAIError from '../../generated/validators/openai-error.js';
import { startHarness, UPSTREAM_ANTHROPIC_KEY, UPSTREAM_OPENAI_KEY, type Harness } from '../support/gateway-harness.ts';

interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}
interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

const MESSAGES = [{ role: 'user', content: 'Hello' }];

/** Sends one request; every answer is checked for the request id and for leaked credentials. */
async function call(base: string, path: string, init: { method?: string; body?: string | object; headers?: Record<string, string> } = {}): Promise<Answer> {
  const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer client-placeholder', ...init.headers },
    ...(body !== undefined && { body }),
  });
  const answer = { status: response.status, headers: response.headers, text: await response.text() };
  expectNoCredential(answer);
  return answer;
}

function expectNoCredential(answer: Answer): void {
  const headers = JSON.stringify([...answer.headers.entries()]);
  for (const secret of [UPSTREAM_OPENAI_KEY, UPSTREAM_ANTHROPIC_KEY]) {
    expect(answer.text).not.toContain(secret);
    expect(headers).not.toContain(secret);
  }
}

function expectRequestId(answer: Answer): void {
  expect(answer.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
}

/** An error in OpenAI's shape, valid against spec/protocols/openai/error.schema.json. */
function openaiError(answer: Answer, status: number): OpenAIErrorBody['error'] {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expectRequestId(answer);
  const body = JSON.parse(answer.text) as OpenAIErrorBody;
  expect(validateOpenAIError(body), JSON.stringify(validateOpenAIError.errors)).toBe(true);
  return body.error;
}

/** An error in Anthropic's shape, valid against spec/protocols/anthropic/error.schema.json. */
function anthropicError(answer: Answer, status: number): AnthropicErrorBody['error'] {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expectRequestId(answer);
  const body = JSON.parse(answer.text) as AnthropicErrorBody;
  expect(validateAnthropicError(body), JSON.stringify(validateAnthropicError.errors)).toBe(true);
  expect(body.type).toBe('error');
  return body.error;
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

const openai = (body: string | object) => call(h.url, '/v1/chat/completions', { body });
const anthropic = (body: string | object) => call(h.url, '/v1/messages', { body, headers: { 'anthropic-version': '2023-06-01' } });

describe('OpenAI ingress (POST /v1/chat/completions): bad bodies', () => {
  it('malformed JSON: 400', async () => {
    const error = openaiError(await openai('{"model": "gpt", "messages": ['), 400);
    expect(error).toMatchObject({ type: 'invalid_request_error', param: null, code: 'invalid_json' });
    expect(error.message).toMatch(/^request body is not valid JSON/);
  });

  it('an empty body: 400', async () => {
    expect(openaiError(await openai(''), 400)).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });
  });

  it('a JSON array body: 400', async () => {
    const error = openaiError(await openai([{ model: 'gpt', messages: MESSAGES }]), 400);
    expect(error).toMatchObject({ type: 'invalid_request_error', param: null, message: 'request body must be a JSON object' });
  });

  it('messages: "hi": 400 naming messages', async () => {
    const error = openaiError(await openai({ model: 'gpt', messages: 'hi' }), 400);
    expect(error).toMatchObject({ type: 'invalid_request_error', param: 'messages', code: 'invalid_request_body' });
    expect(error.message).toMatch(/^messages: must be array/);
  });

  it('temperature: "hot": 400 naming temperature', async () => {
    const error = openaiError(await openai({ model: 'gpt', messages: MESSAGES, temperature: 'hot' }), 400);
    expect(error).toMatchObject({ type: 'invalid_request_error', param: 'temperature' });
    expect(error.message).toMatch(/^temperature: must be number/);
  });

  it('a bad field deep inside a message: 400 naming its path', async () => {
    const error = openaiError(await openai({ model: 'gpt', messages: [{ role: 'wizard', content: 'hi' }] }), 400);
    expect(error.param).toMatch(/^messages\[0\]/);
  });

  it('no messages: 400 naming messages', async () => {
    const error = openaiError(await openai({ model: 'gpt' }), 400);
    expect(error).toMatchObject({ type: 'invalid_request_error', param: 'messages' });
    expect(error.message).toContain("'messages'");
  });

  it('no model: 400 naming model', async () => {
    const error = openaiError(await openai({ messages: MESSAGES }), 400);
    expect(error).toMatchObject({ type: 'invalid_request_error', param: 'model' });
  });

  it('an unknown model: 404 model_not_found', async () => {
    const error = openaiError(await openai({ model: 'gpt-9000', messages: MESSAGES }), 404);
    expect(error).toMatchObject({ type: 'not_found_error', param: 'model', code: 'model_not_found' });
    expect(error.message).toContain('"gpt-9000"');
  });

  it('nothing reached the upstream', () => {
    expect(h.upstream.requests).toHaveLength(0);
  });
});

describe('Anthropic ingress (POST /v1/messages): bad bodies', () => {
  it('malformed JSON: 400', async () => {
    const error = anthropicError(await anthropic('{"model": "claude",'), 400);
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toMatch(/^request body is not valid JSON/);
  });

  it('a JSON array body: 400', async () => {
    const error = anthropicError(await anthropic([]), 400);
    expect(error).toEqual({ type: 'invalid_request_error', message: 'request body must be a JSON object' });
  });

  it('messages: "hi": 400 naming messages', async () => {
    const error = anthropicError(await anthropic({ model: 'claude', max_tokens: 10, messages: 'hi' }), 400);
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toMatch(/^messages: must be array/);
  });

  it('temperature: "hot": 400 naming temperature', async () => {
    const error = anthropicError(await anthropic({ model: 'claude', max_tokens: 10, messages: MESSAGES, temperature: 'hot' }), 400);
    expect(error.message).toMatch(/^temperature: must be number/);
  });

  it('no max_tokens: 400 naming max_tokens', async () => {
    const error = anthropicError(await anthropic({ model: 'claude', messages: MESSAGES }), 400);
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toMatch(/^max_tokens: /);
    expect(error.message).toContain("'max_tokens'");
  });

  it('no messages: 400 naming messages', async () => {
    const error = anthropicError(await anthropic({ model: 'claude', max_tokens: 10 }), 400);
    expect(error.message).toMatch(/^messages: /);
  });

  it('an unknown model: 404 not_found_error', async () => {
    const error = anthropicError(await anthropic({ model: 'claude-9000', max_tokens: 10, messages: MESSAGES }), 404);
    expect(error.type).toBe('not_found_error');
    expect(error.message).toContain('"claude-9000"');
  });

  it('an unknown model in the path (/{model}/v1/messages): 404 not_found_error', async () => {
    const answer = await call(h.url, '/claude-9000/v1/messages', { body: { model: 'claude', max_tokens: 10, messages: MESSAGES } });
    expect(anthropicError(answer, 404).message).toContain('"claude-9000"');
  });

  it('nothing reached the upstream', () => {
    expect(h.upstream.requests).toHaveLength(0);
  });
});

describe('oversized bodies: 413 before the body is read whole', () => {
  let small: Harness;
  beforeAll(async () => {
    small = await startHarness({ maxRequestBytes: 2048 });
  });
  afterAll(() => small.close());
  const big = { model: 'gpt', messages: [{ role: 'user', content: 'x'.repeat(4096) }] };

  it('OpenAI: 413 in the OpenAI shape', async () => {
    const error = openaiError(await call(small.url, '/v1/chat/completions', { body: big }), 413);
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'request_too_large' });
    expect(error.message).toContain('2048 bytes');
  });

  it('Anthropic: 413 request_too_large', async () => {
    const error = anthropicError(await call(small.url, '/v1/messages', { body: { ...big, model: 'claude', max_tokens: 10 } }), 413);
    expect(error.type).toBe('request_too_large');
  });

  it('a body just under the limit is served', async () => {
    const answer = await call(small.url, '/v1/chat/completions', { body: { model: 'gpt', messages: [{ role: 'user', content: 'x'.repeat(1500) }] } });
    expect(answer.status).toBe(200);
    expect(small.upstream.requests).toHaveLength(1);
  });
});

describe('across protocols: fields that cannot be translated', () => {
  it('OpenAI n: 2 to an Anthropic model: 400 naming n, and nothing reaches the upstream', async () => {
    const before = h.upstream.requests.length;
    const error = openaiError(await openai({ model: 'claude', messages: MESSAGES, n: 2 }), 400);
    expect(error).toMatchObject({ type: 'invalid_request_error', param: 'n', code: 'unsupported_parameter' });
    expect(error.message).toContain('anthropic');
    expect(h.upstream.requests.length).toBe(before);
  });

  it('n: 2 is fine on the same protocol (forwarded as is)', async () => {
    const answer = await openai({ model: 'gpt', messages: MESSAGES, n: 2 });
    expect(answer.status).toBe(200);
    expect((h.upstream.requests[0]?.json as { n?: number } | undefined)?.n).toBe(2);
  });

  it('OpenAI seed: 1 to an Anthropic model succeeds with a warning header naming seed', async () => {
    const answer = await openai({ model: 'claude', messages: MESSAGES, seed: 1 });
    expect(answer.status).toBe(200);
    expectRequestId(answer);
    expect(answer.headers.get('x-gateway-warnings')).toContain('seed');
    const completion = JSON.parse(answer.text) as { object: string };
    expect(completion.object).toBe('chat.completion');
    expect(h.upstream.requests).toHaveLength(1);
    expect(h.upstream.requests[0]?.json).not.toHaveProperty('seed');
  });

  it('a translation that drops nothing carries no warning header', async () => {
    const answer = await openai({ model: 'claude', messages: MESSAGES });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-gateway-warnings')).toBeNull();
  });
});

describe('upstream errors reach the client in its own protocol', () => {
  it('an OpenAI-upstream 429 with retry-after: 7, on the Anthropic route: 429 rate_limit_error, retry-after 7', async () => {
    h.upstream.enqueue({
      status: 429,
      headers: { 'retry-after': '7' },
      json: { error: { message: 'Rate limit reached for gpt-4.1-mini', type: 'requests', param: null, code: 'rate_limit_exceeded' } },
    });
    const answer = await anthropic({ model: 'gpt', max_tokens: 10, messages: MESSAGES });
    const error = anthropicError(answer, 429);
    expect(error).toEqual({ type: 'rate_limit_error', message: 'Rate limit reached for gpt-4.1-mini' });
    expect(answer.headers.get('retry-after')).toBe('7');
    expect(h.upstream.requests).toHaveLength(1);
  });

  it('an Anthropic-upstream 529 overloaded, on the OpenAI route: 529 in the OpenAI shape', async () => {
    h.upstream.enqueue({ status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });
    const error = openaiError(await openai({ model: 'claude', messages: MESSAGES }), 529);
    expect(error).toMatchObject({ type: 'server_error', message: 'Overloaded' });
  });

  it('an OpenAI 429 insufficient_quota (billing) on the Anthropic route: billing_error, status kept', async () => {
    h.upstream.enqueue({
      status: 429,
      json: { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', param: null, code: 'insufficient_quota' } },
    });
    const error = anthropicError(await anthropic({ model: 'gpt', max_tokens: 10, messages: MESSAGES }), 429);
    expect(error.type).toBe('billing_error');
  });

  it('an upstream error that is not JSON (a proxy page): the status in the client shape', async () => {
    h.upstream.enqueue({ status: 503, headers: { 'content-type': 'text/html' }, raw: '<html><body>Service Unavailable</body></html>' });
    const error = anthropicError(await anthropic({ model: 'gpt', max_tokens: 10, messages: MESSAGES }), 503);
    expect(error.type).toBe('api_error');
  });

  it('a same-protocol upstream error is relayed as is (status and body)', async () => {
    h.upstream.enqueue({ status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });
    const error = anthropicError(await anthropic({ model: 'claude', max_tokens: 10, messages: MESSAGES }), 529);
    expect(error).toEqual({ type: 'overloaded_error', message: 'Overloaded' });
  });
});

describe('upstream credentials', () => {
  it("an upstream 401 is the operator's fault: a 502 upstream_auth_failed, not a 401 blaming the client", async () => {
    h.upstream.enqueue({ status: 401, json: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } });
    const answer = await openai({ model: 'claude', messages: MESSAGES });
    expect(openaiError(answer, 502)).toMatchObject({ type: 'server_error', code: 'upstream_auth_failed' });
    expect(h.upstream.requests[0]?.headers['x-api-key']).toBe(UPSTREAM_ANTHROPIC_KEY); // it was sent, and `call` checked it is not shown
  });

  // Some OpenAI-compatible servers echo the key in their auth errors (OpenAI itself masks it).
  it('an upstream error that echoes the operator key never shows it to the client', async () => {
    for (const route of ['/v1/chat/completions', '/v1/messages'] as const) {
      h.upstream.enqueue({
        status: 401,
        json: {
          error: { message: `Incorrect API key provided: ${UPSTREAM_OPENAI_KEY}.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
        },
      });
      const answer = await call(h.url, route, { body: { model: 'gpt', max_tokens: 10, messages: MESSAGES } });
      // Same protocol (OpenAI route) or translated (Anthropic route): a 502 either way, not the upstream's 401.
      expect(answer.status).toBe(502);
      expect(answer.text).toContain("refused the gateway's credential");
    }
  });
});

describe('upstream unreachable: 502 in the client shape', () => {
  it('the connection is reset: OpenAI route', async () => {
    h.upstream.enqueue({ fault: 'reset' });
    const error = openaiError(await openai({ model: 'gpt', messages: MESSAGES }), 502);
    expect(error).toMatchObject({ type: 'server_error', code: 'upstream_unreachable' });
    expect(error.message).toContain('upstream openai is unreachable');
  });

  it('the connection is reset: Anthropic route, translated lane', async () => {
    h.upstream.enqueue({ fault: 'reset' });
    const error = anthropicError(await anthropic({ model: 'gpt', max_tokens: 10, messages: MESSAGES }), 502);
    expect(error.type).toBe('api_error');
    expect(error.message).toContain('upstream openai is unreachable');
  });

  it('nothing listens any more (connection refused): both routes', async () => {
    const lonely = await startHarness();
    try {
      await lonely.upstream.close();
      const openaiAnswer = await call(lonely.url, '/v1/chat/completions', { body: { model: 'claude', messages: MESSAGES } });
      expect(openaiError(openaiAnswer, 502)).toMatchObject({ code: 'upstream_unreachable' });
      expect(openaiError(openaiAnswer, 502).message).toContain('upstream anthropic is unreachable');
      const anthropicAnswer = await call(lonely.url, '/v1/messages', { body: { model: 'claude', max_tokens: 10, messages: MESSAGES } });
      expect(anthropicError(anthropicAnswer, 502).type).toBe('api_error');
    } finally {
      await lonely.close();
    }
  });
});

describe('routes', () => {
  it('an unknown route: 404 JSON', async () => {
    const answer = await call(h.url, '/v9/nothing', { body: {} });
    expect(answer.status).toBe(404);
    const body = JSON.parse(answer.text) as OpenAIErrorBody;
    expect(validateOpenAIError(body)).toBe(true);
    expect(body.error).toMatchObject({ type: 'not_found_error', code: 'route_not_found' });
  });

  it('an unknown route from an Anthropic client: 404 in the Anthropic shape', async () => {
    const answer = await call(h.url, '/v1/messages/batches', { body: {}, headers: { 'anthropic-version': '2023-06-01' } });
    expect(answer.status).toBe(404);
    const body = JSON.parse(answer.text) as AnthropicErrorBody;
    expect(validateAnthropicError(body)).toBe(true);
    expect(body.error.type).toBe('not_found_error');
  });

  it('GET on /v1/chat/completions: 405 in the OpenAI shape', async () => {
    const answer = await call(h.url, '/v1/chat/completions', { method: 'GET' });
    expect(answer.status).toBe(405);
    const body = JSON.parse(answer.text) as OpenAIErrorBody;
    expect(validateOpenAIError(body)).toBe(true);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'method_not_allowed' });
  });

  it('GET on /v1/messages: 405 in the Anthropic shape', async () => {
    const answer = await call(h.url, '/v1/messages', { method: 'GET' });
    expect(answer.status).toBe(405);
    expect(validateAnthropicError(JSON.parse(answer.text))).toBe(true);
  });

  it('every data-plane answer carries x-request-id, operational routes and 404/405 included', async () => {
    for (const [path, method] of [
      ['/healthz', 'GET'],
      ['/v1/models', 'GET'],
      ['/v2/nothing', 'POST'],
      ['/v1/chat/completions', 'GET'],
    ] as const) {
      expectRequestId(await call(h.url, path, { method, ...(method === 'POST' && { body: {} }) }));
    }
  });
});
