// With governance on, a token count needs a valid virtual key (401 otherwise, in the client's
// shape) and spends nothing from its budget, since nothing is generated.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/shared/logger.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { openRaw } from '../support/raw-connection.ts';

let h: Harness;
const logLines: Record<string, unknown>[] = [];
beforeAll(async () => {
  h = await startHarness({
    extraYaml: 'db_path: ./gateway.db\ngovernance: on\n',
    log: createLogger('info', { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) }),
  });
});
afterAll(() => h.close());

describe('count_tokens under governance', () => {
  it('401 without a key; with one, the count is answered and nothing is spent', async () => {
    const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'counter', budget_cents: 100 }),
    });
    expect(res.status).toBe(201);
    const key = (await res.json()) as { id: string; secret: string };
    const messages = [{ role: 'user' as const, content: 'hello there' }];

    const anonymous = new Anthropic({ apiKey: 'gwk_not-a-real-key', baseURL: h.url, maxRetries: 0 });
    await expect(anonymous.messages.countTokens({ model: 'claude', messages })).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
    expect(h.upstream.requests.length).toBe(0);

    h.upstream.enqueue({ json: { input_tokens: 9 } });
    const client = new Anthropic({ apiKey: key.secret, baseURL: h.url, maxRetries: 0 });
    expect((await client.messages.countTokens({ model: 'claude', messages })).input_tokens).toBe(9);
    expect(h.gateway.governance!.listKeys().find((k) => k.id === key.id)!.spentMicrocents).toBe(0n);

    // No request record (nothing generated or spent), but one log line per count, refused or answered.
    const counts = logLines.filter((l) => l.msg === 'token count');
    expect(counts).toMatchObject([
      { ingress: 'anthropic', status: 401, errorKind: 'authentication' },
      { ingress: 'anthropic', status: 200, model: 'claude', count: 'upstream' },
    ]);
    expect(counts[1]).toHaveProperty('lane');
    expect(logLines.filter((l) => l.msg === 'request')).toEqual([]);
    expect(JSON.stringify(counts)).not.toContain(key.secret);
  });

  it('an invalid key is refused from the headers, before the body arrives, and the connection closed', async () => {
    // 30 MB declared, a few bytes sent: the answer cannot wait for the rest.
    const head =
      'POST /v1/messages/count_tokens HTTP/1.1\r\nHost: x\r\nx-api-key: gwk_wrong\r\nContent-Type: application/json\r\nContent-Length: 30000000\r\n\r\n{"model":"claude",';
    const { text } = await openRaw(h.url, head).closed;
    expect(text).toMatch(/^HTTP\/1\.1 401 /);
    expect(text.toLowerCase()).toContain('connection: close');
    expect(text).toContain('{"type":"error","error":{"type":"authentication_error"'); // Anthropic's shape (the body is chunked)
  });
});
