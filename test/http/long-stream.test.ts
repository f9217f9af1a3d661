// The answer is never timed: a stream lasting many times every client limit (header, request,
// keep-alive time) runs to its end. The limits are scaled down (1 to 1.5 s against a stream of
// 8 s, over five times the longest) in place of the defaults (15 s, 60 s, 5 s) against a
// 10-minute stream: the request timer stops once the body is read and the keep-alive timer only
// starts after the answer ends, so neither depends on how long the answer lasts, only on that order.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { openaiStreamEvents } from '../support/openai-sse.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ extraYaml: 'server: { header_timeout_ms: 1000, request_timeout_ms: 1500, keep_alive_timeout_ms: 1000 }\n' });
});
afterAll(() => h.close());

describe('a long stream', () => {
  it('outlives every client limit several times over and arrives whole', async () => {
    const pieces = Array.from({ length: 20 }, (_, i) => `p${i} `);
    h.upstream.enqueue({ events: openaiStreamEvents(pieces), delayMs: 400 });
    const client = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: 'sk-client', maxRetries: 0 });
    const started = performance.now();
    const stream = await client.chat.completions.create({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'a long answer' }] });
    let text = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(performance.now() - started).toBeGreaterThan(7500);
    expect(text).toBe(pieces.join(''));
    expect(finish).toBe('stop');
  }, 30_000);
});
