// A gateway on database_url while PostgreSQL is stopped: each client gets a 503 in its own
// protocol's shape with Retry-After (the official SDKs read it), /readyz says store_unreachable
// while /healthz stays ok, and once the database is back everything serves again by itself.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onNewConnection } from '../support/fresh-connection.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres.ts';

const skip = postgresUnavailable();
let server: PostgresServer | undefined;
let h: Harness;
beforeAll(async () => {
  if (skip !== undefined) return;
  server = await startPostgres();
  h = await startHarness({
    extraYaml: 'database_url: { env: TEST_DATABASE_URL }\ngovernance: on\n',
    env: { TEST_DATABASE_URL: await server.createDatabase() },
  });
}, 60_000);
afterAll(async () => {
  server?.resume();
  await h?.close();
  server?.stop();
});

describe.skipIf(skip !== undefined)('PostgreSQL down under a gateway (on_store_error: deny)', () => {
  it("503 with Retry-After in each client's protocol, not ready, then full service again", { timeout: 60_000 }, async () => {
    const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'outage' }),
    });
    const { secret } = (await res.json()) as { secret: string };
    const openai = new OpenAI({ apiKey: secret, baseURL: `${h.url}/v1`, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey: secret, baseURL: h.url, maxRetries: 0 });
    const chat = () => openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] });
    const message = () => anthropic.messages.create({ model: 'claude', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
    await chat();
    await message();

    server!.pause();
    try {
      const openaiError = await chat().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(openaiError).toBeInstanceOf(OpenAI.APIError);
      expect(openaiError).toMatchObject({ status: 503, code: 'store_unavailable' });
      expect((openaiError as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('2');
      const anthropicError = await message().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(anthropicError).toBeInstanceOf(Anthropic.APIError);
      expect((anthropicError as InstanceType<typeof Anthropic.APIError>).status).toBe(503);
      expect((anthropicError as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
        type: 'error',
        error: { type: expect.any(String), message: expect.stringContaining('governance store') },
      });
      expect((anthropicError as InstanceType<typeof Anthropic.APIError>).headers?.get('retry-after')).toBe('2');
      expect(h.upstream.requests).toHaveLength(2); // nothing went upstream unaccounted for
      await expect
        .poll(async () => JSON.parse((await onNewConnection(`${h.url}/readyz`)).body), { timeout: 12_000, interval: 250 })
        .toMatchObject({ status: 'not_ready', reason: 'store_unreachable' });
      expect((await onNewConnection(`${h.url}/healthz`)).status).toBe(200);
    } finally {
      server!.resume();
    }
    await expect
      .poll(
        async () =>
          chat().then(
            () => true,
            () => false,
          ),
        { timeout: 15_000, interval: 200 },
      )
      .toBe(true);
    await message();
    await expect.poll(async () => (await onNewConnection(`${h.url}/readyz`)).status, { timeout: 12_000, interval: 250 }).toBe(200);
  });
});
