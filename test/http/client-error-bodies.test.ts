// Requests Node itself refuses (not valid HTTP: 400; headers too large: 431) get a body in the
// OpenAI error shape, not an empty one, and the connection closes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import validateOpenAIError from '../../generated/validators/openai-error.js';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { openRaw, rawJsonBody } from '../support/raw-connection.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function answerTo(bytes: string): Promise<{ status: number; body: unknown; text: string }> {
  const { text } = await openRaw(h.url, bytes).closed;
  return { status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1]), body: rawJsonBody(text), text };
}

describe("Node's own refusals", () => {
  it('a malformed request line: 400 with an OpenAI error body', async () => {
    const answer = await answerTo('GARBAGE / NOT-HTTP\r\n\r\n');
    expect(answer.status).toBe(400);
    expect(validateOpenAIError(answer.body)).toBe(true);
    expect(answer.body).toMatchObject({ error: { code: 'malformed_request', type: 'invalid_request_error' } });
    expect(answer.text.toLowerCase()).toContain('connection: close');
  });

  it('headers beyond the 16 KiB limit: 431 with an OpenAI error body', async () => {
    const answer = await answerTo(`GET /v1/models HTTP/1.1\r\nHost: x\r\nx-padding: ${'p'.repeat(20_000)}\r\n\r\n`);
    expect(answer.status).toBe(431);
    expect(validateOpenAIError(answer.body)).toBe(true);
    expect(answer.body).toMatchObject({ error: { code: 'headers_too_large' } });
  });
});
