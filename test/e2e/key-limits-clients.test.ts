// A key's limits as the official SDKs meet them on the data plane: its models allow-list (403
// model_not_allowed in each protocol's shape, for chat, embeddings and token counts; /v1/models
// and /stats narrowed to it), its expiry (401 key_expired), its tokens per minute (429 with
// Retry-After) and its team's budget (402 team_budget_exceeded). Real gateway, real SQLite file.
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { components } from '../../generated/admin-api.ts';
import { openaiChatCompletion } from '../../server/demo/openai-replies.ts';
import type { NewKey } from '../../server/governance/key-record.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';

type StatsView = components['schemas']['StatsView'];

/** The team's budget: 1 cent, far less than a 100 000-token answer of `priced` can cost. */
const TEAM_CENTS = 1;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    extraModelsYaml: [
      '  priced: { provider: openai, model: priced-upstream, price: { input: 1, output: 1 } }',
      '  embed: { provider: openai, model: text-embedding-3-small, operations: [embeddings] }',
      '',
    ].join('\n'),
    extraYaml: `db_path: ./gateway.db\ngovernance: on\nteams:\n  eng: { budget_cents: ${TEAM_CENTS} }\n  ops: {}\npools:\n  fast: { members: [{ model: gpt }, { model: claude }] }\n`,
  });
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

function key(spec: NewKey): string {
  return h.gateway.governance!.createKey(spec).secret;
}

const openai = (secret: string) => new OpenAI({ apiKey: secret, baseURL: `${h.url}/v1`, maxRetries: 0 });
const anthropic = (secret: string) => new Anthropic({ apiKey: secret, baseURL: h.url, maxRetries: 0 });
const gemini = (secret: string) => new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: h.url } });
const hello = [{ role: 'user' as const, content: 'hello' }];

describe('models allow-list', () => {
  it('serves a model on the list and refuses one off it with 403 model_not_allowed, in the OpenAI shape', async () => {
    const secret = key({ models: ['gpt', 'embed'] });
    const ok = await openai(secret).chat.completions.create({ model: 'gpt', messages: hello });
    expect(ok.choices[0]?.message.role).toBe('assistant');
    const refused = await openai(secret)
      .chat.completions.create({ model: 'claude', messages: hello })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(refused).toMatchObject({ status: 403, code: 'model_not_allowed', type: 'permission_error' });
    expect((refused as Error).message).toContain('"gpt", "embed"');
    // A pool is a name of its own: its members on the list do not allow it.
    await expect(openai(secret).chat.completions.create({ model: 'fast', messages: hello })).rejects.toMatchObject({ status: 403, code: 'model_not_allowed' });
    expect(h.upstream.requests).toHaveLength(1); // nothing refused went upstream
  });

  it("a refusal takes nothing of the key's rpm (chat and embeddings alike)", async () => {
    const secret = key({ models: ['gpt'], rpm: 1 });
    await expect(openai(secret).chat.completions.create({ model: 'claude', messages: hello })).rejects.toMatchObject({
      status: 403,
      code: 'model_not_allowed',
    });
    await expect(openai(secret).embeddings.create({ model: 'embed', input: 'x' })).rejects.toMatchObject({ status: 403, code: 'model_not_allowed' });
    expect((await openai(secret).chat.completions.create({ model: 'gpt', messages: hello })).choices).toHaveLength(1);
    await expect(openai(secret).chat.completions.create({ model: 'gpt', messages: hello })).rejects.toMatchObject({ status: 429, code: 'rate_limited' });
  });

  it('holds for embeddings too', async () => {
    const secret = key({ models: ['gpt'] });
    await expect(openai(secret).embeddings.create({ model: 'embed', input: 'x' })).rejects.toMatchObject({ status: 403, code: 'model_not_allowed' });
    const allowed = key({ models: ['embed'] });
    expect((await openai(allowed).embeddings.create({ model: 'embed', input: 'x' })).data).toHaveLength(1);
  });

  it("refuses in Anthropic's shape, for messages and count_tokens", async () => {
    const secret = key({ models: ['gpt'] });
    const refused = await anthropic(secret)
      .messages.create({ model: 'claude', max_tokens: 10, messages: hello })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect(refused).toMatchObject({ status: 403, error: { type: 'error', error: { type: 'permission_error' } } });
    await expect(anthropic(secret).messages.countTokens({ model: 'claude', messages: hello })).rejects.toMatchObject({ status: 403 });
    expect((await anthropic(key({ models: ['claude'] })).messages.countTokens({ model: 'claude', messages: hello })).input_tokens).toBeGreaterThan(0);
  });

  it("refuses in Gemini's shape (PERMISSION_DENIED)", async () => {
    const secret = key({ models: ['claude'] });
    const refused = await gemini(secret)
      .models.generateContent({ model: 'gpt', contents: 'hello' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(403);
    // The SDK's message is the error body as sent: Google's envelope.
    expect(JSON.parse((refused as ApiError).message)).toMatchObject({
      error: { code: 403, status: 'PERMISSION_DENIED', message: expect.stringContaining('may not use model "gpt"') },
    });
    const ok = await gemini(secret).models.generateContent({ model: 'claude', contents: 'hello' });
    expect(ok.text).toBeTruthy();
  });

  it('GET /v1/models lists only the allowed names, in the OpenAI, Anthropic and Gemini shapes', async () => {
    const secret = key({ models: ['claude', 'fast'] });
    const ids = [];
    for await (const model of openai(secret).models.list()) ids.push(model.id);
    expect(ids).toEqual(['claude', 'fast']);
    const anthropicIds = [];
    for await (const model of anthropic(secret).models.list()) anthropicIds.push(model.id);
    expect(anthropicIds).toEqual(['claude', 'fast']);
    const geminiNames = [];
    for await (const model of await gemini(secret).models.list()) geminiNames.push(model.name);
    expect(geminiNames).toEqual(['models/claude', 'models/fast']);
    await expect(openai(secret).models.retrieve('gpt')).rejects.toMatchObject({ status: 403, code: 'model_not_allowed' });
    expect((await openai(secret).models.retrieve('fast')).id).toBe('fast');
    // A key without a list sees every name.
    const all = [];
    for await (const model of openai(key({})).models.list()) all.push(model.id);
    expect(all).toEqual(expect.arrayContaining(['gpt', 'claude', 'priced', 'embed', 'fast']));
  });
});

describe('GET /stats on the data plane', () => {
  const stats = (headers: Record<string, string> = {}) => fetch(`${h.url}/stats`, { headers });

  it('needs a key (401 in the usual shape) and shows only the pools that key may use', async () => {
    const bare = await stats();
    expect(bare.status).toBe(401);
    expect(await bare.json()).toMatchObject({ error: { code: 'missing_api_key' } });
    expect((await stats({ authorization: 'Bearer gwk_nope' })).status).toBe(401);

    const limited = await stats({ authorization: `Bearer ${key({ models: ['fast', 'gpt'] })}` });
    expect(limited.status).toBe(200);
    const view = (await limited.json()) as StatsView;
    expect(view.pools.map((p) => p.pool).sort()).toEqual(['fast', 'gpt']);
    expect(view.pools.find((p) => p.pool === 'fast')?.lanes.map((l) => l.lane)).toEqual(['gpt', 'claude']);
    expect(view.keys).toBeUndefined(); // the key store's counts are the admin plane's
    expect(view.requests.total).toBeGreaterThan(0);

    const everything = (await (await stats({ 'x-api-key': key({}) })).json()) as StatsView;
    const admin = (await (await fetch(`${h.adminUrl}/stats`)).json()) as StatsView;
    expect(everything.pools.map((p) => p.pool)).toEqual(admin.pools.map((p) => p.pool));
    expect(admin.keys?.total).toBeGreaterThan(0);
  });
});

describe('expiry', () => {
  it('a key past its expires_at gets 401 key_expired from the next request on', async () => {
    const created = h.gateway.governance!.createKey({ expiresAt: Date.now() + 60_000 });
    expect((await openai(created.secret).chat.completions.create({ model: 'gpt', messages: hello })).choices).toHaveLength(1);
    h.gateway.governance!.updateKey(created.key.id, { expiresAt: Date.now() - 1 });
    const refused = await openai(created.secret)
      .chat.completions.create({ model: 'gpt', messages: hello })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(refused).toMatchObject({ status: 401, code: 'key_expired' });
    await expect(anthropic(created.secret).messages.create({ model: 'claude', max_tokens: 5, messages: hello })).rejects.toMatchObject({
      status: 401,
      error: { error: { type: 'authentication_error' } },
    });
  });
});

describe('tokens per minute', () => {
  const answer = () =>
    h.upstream.enqueue({ json: openaiChatCompletion({ id: 'c', model: 'gpt-4.1-mini', text: 'hi', usage: { prompt_tokens: 30, completion_tokens: 20 } }) });
  const request = { model: 'gpt', max_completion_tokens: 1000, messages: hello };
  /** What admission holds for `request`: its bytes (a token is at least one) and its output limit. */
  const worst = Buffer.byteLength(JSON.stringify(request)) + 1000;

  it('a request whose worst case alone is over the tpm is refused with 429 and Retry-After 60', async () => {
    const refused = await openai(key({ tpm: 500 }))
      .chat.completions.create(request)
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect(refused).toMatchObject({ status: 429, code: 'tokens_per_minute_exceeded' });
    expect((refused as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).toBe('60');
    expect(h.upstream.requests).toHaveLength(0);
  });

  it('holds embeddings to it too: their input is their worst case', async () => {
    const input = 'x'.repeat(600);
    await expect(openai(key({ tpm: 500 })).embeddings.create({ model: 'embed', input })).rejects.toMatchObject({
      status: 429,
      code: 'tokens_per_minute_exceeded',
    });
    expect((await openai(key({ tpm: 5000 })).embeddings.create({ model: 'embed', input })).data).toHaveLength(1);
  });

  it('counts the real usage of a settled request, and refuses the next that would pass the tpm until the window moves', async () => {
    const secret = key({ tpm: worst + 40 });
    answer();
    await openai(secret).chat.completions.create(request); // settles at 50 tokens
    const refused = await openai(secret)
      .chat.completions.create(request)
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 429, code: 'tokens_per_minute_exceeded' });
    const retryAfter = Number((refused as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // A smaller request fits beside the 50 settled tokens.
    answer();
    expect((await openai(secret).chat.completions.create({ ...request, max_completion_tokens: 100 })).choices).toHaveLength(1);
  });
});

describe('team budgets', () => {
  it("refuses a request the team's budget cannot hold with 402 team_budget_exceeded, whatever the key's own budget", async () => {
    const secret = key({ team: 'eng', budgetMicrocents: 10n ** 12n });
    const refused = await openai(secret)
      .chat.completions.create({ model: 'priced', max_completion_tokens: 100_000, messages: hello })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 402, code: 'team_budget_exceeded' });
    expect((refused as Error).message).toContain('team "eng"');
    // A team without a budget, and a small request of a team with one, are served.
    expect(
      (await openai(key({ team: 'ops' })).chat.completions.create({ model: 'priced', max_completion_tokens: 100_000, messages: hello })).choices,
    ).toHaveLength(1);
    expect((await openai(secret).chat.completions.create({ model: 'priced', max_completion_tokens: 100, messages: hello })).choices).toHaveLength(1);
  });

  it('takes a new team budget live: applied, the next request is held to it; taken back, refused again', async () => {
    const secret = key({ team: 'eng' });
    const big = { model: 'priced', max_completion_tokens: 100_000, messages: hello };
    await expect(openai(secret).chat.completions.create(big)).rejects.toMatchObject({ status: 402, code: 'team_budget_exceeded' });
    const running = h.gateway.configControl.currentText();
    const raised = running.replace(`eng: { budget_cents: ${TEAM_CENTS} }`, 'eng: { budget_cents: 1000, budget_period: daily }');
    expect(raised).not.toBe(running);
    expect(await h.gateway.configControl.applyText(raised, 'apply')).toMatchObject({ applied: true });
    expect((await openai(secret).chat.completions.create(big)).choices).toHaveLength(1);
    expect(await h.gateway.configControl.applyText(running, 'apply')).toMatchObject({ applied: true });
    await expect(openai(secret).chat.completions.create(big)).rejects.toMatchObject({ status: 402, code: 'team_budget_exceeded' });
  });
});
