// Self-serve keys with two data-plane workers: whichever worker a POST /auth/token lands on, it
// verifies the token itself and the main thread issues the key, so concurrent exchanges for one
// person on both workers still give one key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onNewConnection } from '../support/fresh-connection.ts';
import { startSelfServeGateway, type SelfServeGateway, type TokenAnswer } from '../auth/support/self-serve-gateway.ts';

let g: SelfServeGateway;
beforeAll(async () => {
  g = await startSelfServeGateway({ workers: 2 });
});
afterAll(() => g.close());

describe('self-serve keys with two workers', () => {
  it('16 concurrent exchanges for one person, on both workers, give one key that serves at once', async () => {
    const tokens = await Promise.all(Array.from({ length: 16 }, () => g.issuer.cliTokens('alice')));
    const before = await g.h.gateway.workerTelemetry();
    const answers = await Promise.all(
      tokens.map((t) => onNewConnection(`${g.h.url}/auth/token`, { method: 'POST', body: JSON.stringify({ id_token: t.idToken }) })),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const keys = new Set(answers.map((a) => (JSON.parse(a.body) as TokenAnswer).key));
    expect(keys.size).toBe(1);
    expect(g.h.gateway.governance!.listKeys()).toHaveLength(1);
    const after = await g.h.gateway.workerTelemetry();
    expect(after.every((w, i) => w.requests > (before[i]?.requests ?? 0))).toBe(true);

    const [key] = [...keys];
    const chat = await onNewConnection(`${g.h.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }),
      headers: { authorization: `Bearer ${key}` },
    });
    expect(chat.status).toBe(200);
  });
});
