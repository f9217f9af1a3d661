// `make run`'s first-run embeddings example: the embedded demo configuration's demo-embed model,
// answered by the built-in demo upstream with deterministic vectors (the same text, the same vector).
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../server/app/start-gateway.ts';
import { loadConfigText } from '../../server/config/load-config.ts';
import { EMBEDDED_DEFAULT_CONFIG } from '../../server/config/embedded-default.ts';
import { demoVector } from '../../server/demo/demo-vector.ts';
import { createLogger } from '../../server/shared/logger.ts';

let gateway: RunningGateway;
beforeAll(async () => {
  const text = EMBEDDED_DEFAULT_CONFIG.replace('0.0.0.0:8080', '127.0.0.1:0').replace('127.0.0.1:8081', '127.0.0.1:0');
  gateway = await startGateway(loadConfigText(text, '(embedded default)', process.cwd(), { env: {} }), { log: createLogger('silent'), workers: 1 });
});
afterAll(() => gateway.close());

describe('the demo upstream answers embeddings', () => {
  it('the README curl: deterministic vectors and a usage count', async () => {
    const res = await fetch(`${gateway.dataUrl}/v1/embeddings`, { method: 'POST', body: JSON.stringify({ model: 'demo-embed', input: ['hello', 'world'] }) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { embedding: number[]; index: number }[]; usage: { prompt_tokens: number } };
    expect(body.data.map((d) => d.embedding)).toEqual([demoVector('hello'), demoVector('world')]);
    expect(body.usage.prompt_tokens).toBe(2);
  });

  it('the openai SDK (base64) and a second call: the same vector for the same text', async () => {
    const openai = new OpenAI({ apiKey: 'anything', baseURL: `${gateway.dataUrl}/v1`, maxRetries: 0 });
    const first = await openai.embeddings.create({ model: 'demo-embed', input: 'hello' });
    const again = await openai.embeddings.create({ model: 'demo-embed', input: 'hello', encoding_format: 'float' });
    expect(first.data[0]!.embedding).toEqual(again.data[0]!.embedding);
    expect(first.data[0]!.embedding).toHaveLength(8);
  });
});
