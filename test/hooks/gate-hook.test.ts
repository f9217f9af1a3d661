// Gate hooks end to end: a real gateway, a real HTTP policy service, the official OpenAI and
// Anthropic SDKs as clients. A denial is a 403 in the client's protocol and nothing goes upstream;
// a gate that cannot answer in time fails open or closed as configured.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { answerJson, startHookReceiver, type HookReceiver } from '../support/hook-receiver.ts';

const TIMEOUT_MS = 300;
const PROMPT = 'the secret plan is to say hello';
const GATE_TOKEN = 'gate-bearer-s3cret';

let gate: HookReceiver;
let open: Harness; // on_error: allow
let closed: Harness; // on_error: deny, include_content
beforeAll(async () => {
  gate = await startHookReceiver();
  const hook = (name: string, extra: string) =>
    `hooks:\n  - { name: ${name}, kind: gate, url: "${gate.url}/${name}", timeout_ms: ${TIMEOUT_MS}, headers: { authorization: { env: GATE_TOKEN } }, ${extra} }\n`;
  open = await startHarness({
    env: { GATE_TOKEN: `Bearer ${GATE_TOKEN}` },
    extraYaml: `pools:\n  chat: { members: [ { model: gpt, weight: 2 }, { model: claude } ] }\n${hook('policy', 'on_error: allow')}`,
  });
  closed = await startHarness({ env: { GATE_TOKEN: `Bearer ${GATE_TOKEN}` }, extraYaml: hook('strict', 'on_error: deny, include_content: true') });
});
afterAll(async () => {
  await open.close();
  await closed.close();
  await gate.close();
});
beforeEach(() => {
  gate.reset();
  gate.respond = (_, res) => answerJson(res, 200, { allow: true });
  open.upstream.reset();
  closed.upstream.reset();
});

const openai = (h: Harness) => new OpenAI({ apiKey: 'client-key', baseURL: `${h.url}/v1`, maxRetries: 0 });
const anthropic = (h: Harness) => new Anthropic({ apiKey: 'client-key', baseURL: h.url, maxRetries: 0 });
const counters = (h: Harness) => h.gateway.hooks.list()[0]?.gate;
const deny = (reason: string) => {
  gate.respond = (_, res) => answerJson(res, 200, { allow: false, reason });
};

describe('a gate that allows', () => {
  it("is asked with the request's metadata (no prompt text), then the upstream answers", async () => {
    const before = { ...counters(open)! };
    const { data, response } = await openai(open)
      .chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: PROMPT }] })
      .withResponse();
    expect(data.choices[0]?.message.content).toBeTruthy();
    expect(open.upstream.requests).toHaveLength(1);
    expect(gate.calls).toHaveLength(1);
    const call = gate.calls[0]!;
    expect(call.path).toBe('/policy');
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.headers.authorization).toBe(`Bearer ${GATE_TOKEN}`);
    expect(call.json).toEqual({
      version: 1,
      event: 'request.gate',
      hook: 'policy',
      request_id: response.headers.get('x-request-id'),
      key_id: null,
      model: 'chat',
      pool: 'chat',
      lanes: [
        { model: 'gpt', provider: 'openai', protocol: 'openai', upstream_model: 'gpt-4.1-mini' },
        { model: 'claude', provider: 'anthropic', protocol: 'anthropic', upstream_model: 'claude-sonnet-4-5' },
      ],
      ingress: 'openai',
      stream: false,
      client_ip: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$/),
    });
    expect(call.text).not.toContain('secret plan');
    expect(counters(open)).toEqual({ calls: before.calls + 1, allowed: before.allowed + 1, denied: before.denied, errors: before.errors });
  });

  it('sees an Anthropic streaming request as such', async () => {
    const stream = anthropic(open).messages.stream({ model: 'claude', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] });
    await stream.finalMessage();
    expect(gate.calls[0]?.json).toMatchObject({ ingress: 'anthropic', stream: true, model: 'claude', pool: null, lanes: [{ model: 'claude' }] });
  });
});

describe('a gate that denies', () => {
  it('OpenAI SDK: PermissionDeniedError 403, code denied_by_hook, the reason in the message; the upstream is never called', async () => {
    deny('team over its model allowance');
    const before = { ...counters(open)! };
    const error = await openai(open)
      .chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: PROMPT }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const denied = error as InstanceType<typeof OpenAI.PermissionDeniedError>;
    expect(denied.status).toBe(403);
    expect(denied.code).toBe('denied_by_hook');
    expect(denied.error).toMatchObject({ type: 'permission_error', message: 'request denied by the gate hook "policy": team over its model allowance' });
    expect(open.upstream.requests).toHaveLength(0);
    expect(counters(open)).toMatchObject({ calls: before.calls + 1, denied: before.denied + 1, allowed: before.allowed });
  });

  it('OpenAI SDK, streaming: the 403 comes before any stream', async () => {
    deny('no streaming today');
    const error = await openai(open)
      .chat.completions.create({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(open.upstream.requests).toHaveLength(0);
  });

  it('Anthropic SDK: PermissionDeniedError with a permission_error in the Anthropic shape', async () => {
    gate.respond = (_, res) => answerJson(res, 200, { allow: false }); // no reason given
    const error = await anthropic(open)
      .messages.create({ model: 'claude', max_tokens: 50, messages: [{ role: 'user', content: PROMPT }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.PermissionDeniedError);
    const denied = error as InstanceType<typeof Anthropic.PermissionDeniedError>;
    expect(denied.status).toBe(403);
    expect(denied.error).toEqual({ type: 'error', error: { type: 'permission_error', message: 'request denied by the gate hook "policy"' } });
    expect(open.upstream.requests).toHaveLength(0);
  });

  it('a control character or an overlong reason is cleaned before it reaches the client', async () => {
    deny(`bad\r\nx-injected: yes ${'z'.repeat(600)}`);
    const res = await fetch(`${open.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('x-injected')).toBeNull();
    const message = ((await res.json()) as { error: { message: string } }).error.message;
    expect(message).toMatch(/^request denied by the gate hook "policy": bad x-injected: yes z+\.\.\.$/);
    expect(message.length).toBeLessThan(600);
  });
});

describe('a gate that cannot answer', () => {
  it('fail open (on_error: allow): a gate slower than timeout_ms lets the request through, counted as an error', async () => {
    gate.respond = () => 'hang';
    const before = { ...counters(open)! };
    const started = Date.now();
    const completion = await openai(open).chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] });
    expect(completion.choices[0]?.message.content).toBeTruthy();
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(open.upstream.requests).toHaveLength(1);
    expect(counters(open)).toMatchObject({ calls: before.calls + 1, errors: before.errors + 1, allowed: before.allowed, denied: before.denied });
  });

  it('fail closed (on_error: deny): a gate slower than timeout_ms denies with 403 hook_unavailable; nothing goes upstream', async () => {
    gate.respond = () => 'hang';
    const error = await openai(closed)
      .chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.PermissionDeniedError);
    const denied = error as InstanceType<typeof OpenAI.PermissionDeniedError>;
    expect(denied.code).toBe('hook_unavailable');
    expect(denied.message).toContain(`the gate hook "strict" could not decide (no answer within ${TIMEOUT_MS} ms), and it denies when it cannot`);
    expect(denied.message).not.toContain(gate.url);
    expect(closed.upstream.requests).toHaveLength(0);
    expect(counters(closed)).toMatchObject({ errors: 1 });
  });

  it.each([
    ['HTTP 500', (res: import('node:http').ServerResponse) => answerJson(res, 500, { allow: true }), 'answered HTTP 500'],
    [
      'not JSON',
      (res: import('node:http').ServerResponse) => {
        res.writeHead(200);
        res.end('yes');
      },
      'answered with something that is not JSON',
    ],
    ['no boolean allow', (res: import('node:http').ServerResponse) => answerJson(res, 200, { allow: 'yes' }), 'answered without a boolean "allow"'],
    [
      'connection reset',
      (res: import('node:http').ServerResponse) => {
        res.socket?.destroy();
      },
      'connection reset',
    ],
  ])('fail closed on %s, and fail open on the same', async (_, respond, reason) => {
    gate.respond = (_call, res) => respond(res);
    const res = await fetch(`${closed.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ model: 'claude', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      type: 'error',
      error: { type: 'permission_error', message: `the gate hook "strict" could not decide (${reason}), and it denies when it cannot` },
    });
    expect(closed.upstream.requests).toHaveLength(0);
    expect(
      (
        await fetch(`${open.url}/v1/messages`, {
          method: 'POST',
          body: JSON.stringify({ model: 'claude', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
        })
      ).status,
    ).toBe(200);
  });
});

describe('include_content', () => {
  it("sends the client's request body as it was sent", async () => {
    const body = { model: 'gpt', messages: [{ role: 'user', content: PROMPT }], temperature: 0.5 };
    expect((await fetch(`${closed.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify(body) })).status).toBe(200);
    expect(gate.calls[0]?.json).toMatchObject({ hook: 'strict', model: 'gpt', request: body });
  });
});

describe('with governance on', () => {
  it("the gate sees the virtual key's id (never its secret); a denial releases the budget reservation", async () => {
    const h = await startHarness({
      extraModelsYaml: '  priced: { provider: openai, model: priced-upstream, price: { input: 1, output: 1 } }\n',
      extraYaml: `db_path: ./gateway.db\ngovernance: on\nhooks:\n  - { name: policy, kind: gate, url: "${gate.url}/policy", on_error: deny }\n`,
    });
    try {
      const created = await fetch(`${h.adminUrl}/api/v1/admin/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ budget_cents: 100 }),
      });
      const key = (await created.json()) as { id: string; secret: string };
      deny('not this key');
      const res = await fetch(`${h.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.secret}` },
        body: JSON.stringify({ model: 'priced', messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(res.status).toBe(403);
      expect(gate.calls[0]?.json).toMatchObject({ key_id: key.id });
      expect(gate.calls[0]?.text).not.toContain(key.secret);
      const state = h.gateway.governance!.getKey(key.id)!;
      expect([state.spentMicrocents, state.reservedMicrocents]).toEqual([0n, 0n]);
      expect(h.upstream.requests).toHaveLength(0);
    } finally {
      await h.close();
    }
  });
});
