// A key changed through the admin API, as the official SDKs meet it on the data plane from their
// next request: a rotated secret (the old one served during its grace, then 401), a PATCH of each
// limit (budget, rpm, tpm, models, expiry, team), and budget periods rolling over at UTC midnight.
// Real gateway, real SQLite file, real admin plane; governance's wall clock is injected so a grace
// or a period can be crossed without waiting.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { components } from '../../generated/admin-api.ts';
import { openaiChatCompletion } from '../../server/demo/openai-replies.ts';
import { manualClock } from '../governance/support.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';

type KeyCreated = components['schemas']['KeyCreated'];
type KeyView = components['schemas']['KeyView'];

/** The team whose budget a test moves a key into: 1 cent, far less than `big` can cost. */
const TEAM_CENTS = 1;

const wall = manualClock(Date.now());
let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    wallClock: wall.now,
    extraModelsYaml: '  priced: { provider: openai, model: priced-upstream, price: { input: 1, output: 1 } }\n',
    extraYaml: `db_path: ./gateway.db\ngovernance: on\nteams:\n  eng: { budget_cents: ${TEAM_CENTS} }\n  ops: {}\n  nightly: { budget_cents: 1, budget_period: daily }\n`,
  });
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

async function adminCall<T>(method: string, path: string, body?: unknown, status = 200): Promise<T> {
  const response = await fetch(`${h.adminUrl}/api/v1/admin${path}`, {
    method,
    ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}
const createKey = (body: object) => adminCall<KeyCreated>('POST', '/keys', body, 201);
const patchKey = (id: string, body: object) => adminCall<KeyView>('PATCH', `/keys/${id}`, body);
const getKey = (id: string) => adminCall<KeyView>('GET', `/keys/${id}`);

const openai = (secret: string) => new OpenAI({ apiKey: secret, baseURL: `${h.url}/v1`, maxRetries: 0 });
const anthropic = (secret: string) => new Anthropic({ apiKey: secret, baseURL: h.url, maxRetries: 0 });
const hello = [{ role: 'user' as const, content: 'hello' }];
/** At 1 USD per million tokens its worst case is about 10 cents. */
const big = { model: 'priced', max_completion_tokens: 100_000, messages: hello };

/** One chat completion through the OpenAI SDK: 'served', or the refusal's status and code. */
async function chat(secret: string, request: OpenAI.ChatCompletionCreateParamsNonStreaming = { model: 'gpt', messages: hello }): Promise<string> {
  try {
    const completion = await openai(secret).chat.completions.create(request);
    expect(completion.choices[0]?.message.role).toBe('assistant');
    return 'served';
  } catch (error) {
    if (!(error instanceof OpenAI.APIError)) throw error;
    return `${error.status} ${error.code}`;
  }
}

describe('rotation', () => {
  it('the old secret keeps working through the SDKs during grace_seconds and is refused with 401 after; the new one works', async () => {
    const key = await createKey({ name: 'leaked' });
    expect(await chat(key.secret)).toBe('served');
    const next = await adminCall<KeyCreated>('POST', `/keys/${key.id}/rotate`, { grace_seconds: 30 });
    expect(next).toMatchObject({ id: key.id, previous_secret_until: new Date(wall.now() + 30_000).toISOString() });
    expect(next.secret).not.toBe(key.secret);

    expect(await chat(key.secret)).toBe('served');
    expect(await chat(next.secret)).toBe('served');
    wall.advance(29_999);
    expect(await chat(key.secret)).toBe('served');
    expect((await anthropic(key.secret).messages.create({ model: 'claude', max_tokens: 5, messages: hello })).role).toBe('assistant');

    wall.advance(1); // the grace is over: the old secret is an unknown key
    const refused = await openai(key.secret)
      .chat.completions.create({ model: 'gpt', messages: hello })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(refused).toMatchObject({ status: 401, code: 'invalid_api_key' });
    await expect(anthropic(key.secret).messages.create({ model: 'claude', max_tokens: 5, messages: hello })).rejects.toMatchObject({
      status: 401,
      error: { type: 'error', error: { type: 'authentication_error' } },
    });
    expect(await chat(next.secret)).toBe('served');
    // Both secrets' requests are the one key's: six served, one usage.
    const usage = await adminCall<components['schemas']['UsageReport']>('GET', `/keys/${key.id}/usage`);
    expect(usage.total.requests).toBe(6);
  });

  it('without a grace (grace_seconds 0, the default) the old secret is refused at once', async () => {
    const key = await createKey({ name: 'leaked at once' });
    expect(await chat(key.secret)).toBe('served');
    const next = await adminCall<KeyCreated>('POST', `/keys/${key.id}/rotate`, { grace_seconds: 0 });
    expect(await chat(key.secret)).toBe('401 invalid_api_key');
    expect(await chat(next.secret)).toBe('served');
    const again = await adminCall<KeyCreated>('POST', `/keys/${key.id}/rotate`); // no body: no grace
    expect(await chat(next.secret)).toBe('401 invalid_api_key');
    expect(await chat(again.secret)).toBe('served');
  });
});

describe('PATCH takes effect on the next request', () => {
  it('a key refused with 402 budget_exceeded is served once budget_cents is raised, and refused again when it is lowered', async () => {
    const key = await createKey({ budget_cents: 1 });
    expect(await chat(key.secret, big)).toBe('402 budget_exceeded');
    expect(await patchKey(key.id, { budget_cents: 100 })).toMatchObject({ budget_cents: 100 });
    expect(await chat(key.secret, big)).toBe('served');
    await patchKey(key.id, { budget_cents: 1 });
    expect(await chat(key.secret, big)).toBe('402 budget_exceeded');
    await patchKey(key.id, { budget_cents: null }); // no budget at all
    expect(await chat(key.secret, big)).toBe('served');
  });

  it('rpm lowered, raised and cleared', async () => {
    const key = await createKey({});
    expect(await chat(key.secret)).toBe('served');
    await patchKey(key.id, { rpm: 2 });
    expect(await chat(key.secret)).toBe('served');
    expect(await chat(key.secret)).toBe('served');
    const refused = await openai(key.secret)
      .chat.completions.create({ model: 'gpt', messages: hello })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(Number((refused as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after'))).toBeGreaterThan(0);
    await patchKey(key.id, { rpm: 3 });
    expect(await chat(key.secret)).toBe('served'); // the refused one took nothing
    expect(await chat(key.secret)).toBe('429 rate_limited');
    await patchKey(key.id, { rpm: null });
    expect(await chat(key.secret)).toBe('served');
  });

  it('tpm lowered and cleared', async () => {
    const key = await createKey({});
    const request = { model: 'gpt', max_completion_tokens: 1000, messages: hello };
    expect(await chat(key.secret, request)).toBe('served');
    await patchKey(key.id, { tpm: 500 }); // less than the request's output limit alone
    expect(await chat(key.secret, request)).toBe('429 tokens_per_minute_exceeded');
    await patchKey(key.id, { tpm: null });
    expect(await chat(key.secret, request)).toBe('served');
  });

  it('models changed: the next request and GET /v1/models follow the new list', async () => {
    const key = await createKey({ models: ['gpt'] });
    const listed = async () => {
      const ids: string[] = [];
      for await (const model of openai(key.secret).models.list()) ids.push(model.id);
      return ids;
    };
    expect(await listed()).toEqual(['gpt']);
    await expect(anthropic(key.secret).messages.create({ model: 'claude', max_tokens: 5, messages: hello })).rejects.toMatchObject({ status: 403 });
    expect(await chat(key.secret, { model: 'claude', messages: hello })).toBe('403 model_not_allowed');

    await patchKey(key.id, { models: ['gpt', 'claude'] });
    expect((await anthropic(key.secret).messages.create({ model: 'claude', max_tokens: 5, messages: hello })).role).toBe('assistant');
    expect(await listed()).toEqual(['gpt', 'claude']);

    await patchKey(key.id, { models: ['claude'] });
    expect(await chat(key.secret)).toBe('403 model_not_allowed');
    await patchKey(key.id, { models: null }); // every model again
    expect(await chat(key.secret)).toBe('served');
    expect(await listed()).toEqual(expect.arrayContaining(['gpt', 'claude', 'priced']));
  });

  it('expires_at set in the past: 401 key_expired at once; a later expiry serves again until the wall clock reaches it', async () => {
    const key = await createKey({});
    expect(await chat(key.secret)).toBe('served');
    await patchKey(key.id, { expires_at: new Date(wall.now() - 1000).toISOString() });
    const refused = await openai(key.secret)
      .chat.completions.create({ model: 'gpt', messages: hello })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(refused).toMatchObject({ status: 401, code: 'key_expired' });
    await expect(anthropic(key.secret).messages.create({ model: 'claude', max_tokens: 5, messages: hello })).rejects.toMatchObject({ status: 401 });

    await patchKey(key.id, { expires_at: new Date(wall.now() + 60_000).toISOString() });
    expect(await chat(key.secret)).toBe('served');
    wall.advance(60_000); // the contractor's last day is over
    expect(await chat(key.secret)).toBe('401 key_expired');
    await patchKey(key.id, { expires_at: null });
    expect(await chat(key.secret)).toBe('served');
  });

  it("team changed: held to the new team's budget from the next request; cleared, to none", async () => {
    const key = await createKey({ team: 'ops' }); // ops has no budget
    expect(await chat(key.secret, big)).toBe('served');
    expect(await patchKey(key.id, { team: 'eng' })).toMatchObject({ team: 'eng' });
    expect(await chat(key.secret, big)).toBe('402 team_budget_exceeded');
    await patchKey(key.id, { team: null });
    expect(await chat(key.secret, big)).toBe('served');
  });
});

/** The UTC midnight `days` days after the one that began the day of `ms`. */
function midnight(ms: number, days: number): number {
  const day = new Date(ms);
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + days);
}
const nextMidnight = (ms: number) => midnight(ms, 1);

describe('budget periods through the data plane (injected wall clock)', () => {
  /** A request whose worst case (its bytes and 5 000 output tokens) fits in a cent; it is billed a cent exactly. */
  const spendACent = async (secret: string) => {
    h.upstream.enqueue({
      json: openaiChatCompletion({ id: 'c', model: 'priced-upstream', text: 'hi', usage: { prompt_tokens: 5000, completion_tokens: 5000 } }),
    });
    return chat(secret, { model: 'priced', max_completion_tokens: 5000, messages: hello });
  };
  const small = { model: 'priced', max_completion_tokens: 10, messages: hello };

  it('a daily budget spent is refused with 402 until the next UTC midnight, then served; the lifetime spend is kept', async () => {
    const key = await createKey({ budget_cents: 1, budget_period: 'daily' });
    expect(await spendACent(key.secret)).toBe('served');
    expect(await chat(key.secret, small)).toBe('402 budget_exceeded');
    const today = midnight(wall.now(), 0);
    expect(await getKey(key.id)).toMatchObject({
      spent_cents: 1,
      lifetime_spent_cents: 1,
      remaining_cents: 0,
      period_started_at: new Date(today).toISOString(),
    });

    const tomorrow = nextMidnight(wall.now());
    wall.set(tomorrow - 1);
    expect(await chat(key.secret, small)).toBe('402 budget_exceeded');
    wall.set(tomorrow);
    expect(await getKey(key.id)).toMatchObject({
      spent_cents: 0,
      spent_usd: '0.00000000',
      lifetime_spent_cents: 1,
      lifetime_spent_usd: '0.01000000',
      remaining_cents: 1,
      period_started_at: new Date(tomorrow).toISOString(),
    });
    expect(await spendACent(key.secret)).toBe('served');
    expect(await chat(key.secret, small)).toBe('402 budget_exceeded');
    expect(await getKey(key.id)).toMatchObject({ spent_cents: 1, lifetime_spent_cents: 2 });
  });

  it("a team's daily budget (config.yaml) spent by one key holds its other keys until midnight", async () => {
    const spender = await createKey({ team: 'nightly' });
    const other = await createKey({ team: 'nightly' });
    expect(await spendACent(spender.secret)).toBe('served');
    expect(await chat(other.secret, small)).toBe('402 team_budget_exceeded');
    expect(await chat(spender.secret, small)).toBe('402 team_budget_exceeded');
    const teams = await adminCall<components['schemas']['TeamList']>('GET', '/teams');
    expect(teams.data.find((t) => t.name === 'nightly')).toMatchObject({ budget_cents: 1, spent_cents: 1, remaining_cents: 0 });

    wall.set(nextMidnight(wall.now()));
    expect(await chat(other.secret, small)).toBe('served');
    expect(await chat(spender.secret, small)).toBe('served');
  });

  it('a budget_period set by PATCH counts only the current period: a key out of lifetime budget is served again', async () => {
    const key = await createKey({ budget_cents: 1 });
    expect(await spendACent(key.secret)).toBe('served');
    expect(await chat(key.secret, small)).toBe('402 budget_exceeded');
    wall.set(nextMidnight(wall.now()) + 60_000); // yesterday's spend is not today's
    expect(await chat(key.secret, small)).toBe('402 budget_exceeded'); // a lifetime budget does not reset
    expect(await patchKey(key.id, { budget_period: 'daily' })).toMatchObject({ spent_cents: 0, lifetime_spent_cents: 1, remaining_cents: 1 });
    expect(await chat(key.secret, small)).toBe('served');
    await patchKey(key.id, { budget_period: null }); // back to lifetime: spent again
    expect(await chat(key.secret, small)).toBe('402 budget_exceeded');
  });
});
