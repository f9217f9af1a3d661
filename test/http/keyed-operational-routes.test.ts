// With governance on, GET /v1/models needs a virtual key by default (models_require_key) and
// GET /metrics does not unless metrics.require_key is set; a refusal is a 401 in the client's shape.
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';

async function makeKey(h: Harness): Promise<string> {
  const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({}) });
  return ((await res.json()) as { secret: string }).secret;
}

describe('defaults, governance on', () => {
  let h: Harness;
  let secret: string;
  beforeAll(async () => {
    h = await startHarness({ extraYaml: 'db_path: ./gateway.db\ngovernance: on\n' });
    secret = await makeKey(h);
  });
  afterAll(() => h.close());

  it('/v1/models refuses a client without a key, in the OpenAI shape and the Anthropic shape', async () => {
    await expect(new OpenAI({ baseURL: `${h.url}/v1`, apiKey: 'gwk_not-a-key', maxRetries: 0 }).models.list()).rejects.toMatchObject({ status: 401 });
    const bare = await fetch(`${h.url}/v1/models`);
    expect(bare.status).toBe(401);
    expect(await bare.json()).toMatchObject({ error: { type: expect.any(String), message: expect.stringContaining('key') } });
    await expect(new Anthropic({ baseURL: h.url, apiKey: 'nope', maxRetries: 0 }).models.list()).rejects.toMatchObject({
      status: 401,
      error: { type: 'error' },
    });
  });

  it('/v1/models answers a valid key', async () => {
    const page = await new OpenAI({ baseURL: `${h.url}/v1`, apiKey: secret, maxRetries: 0 }).models.list();
    expect(page.data.map((m) => m.id)).toContain('gpt');
  });

  it('/metrics stays open to scrapers', async () => {
    expect((await fetch(`${h.url}/metrics`)).status).toBe(200);
  });
});

describe('configured the other way round', () => {
  let h: Harness;
  let secret: string;
  beforeAll(async () => {
    h = await startHarness({ extraYaml: 'db_path: ./gateway.db\ngovernance: on\nmodels_require_key: false\nmetrics: { require_key: true }\n' });
    secret = await makeKey(h);
  });
  afterAll(() => h.close());

  it('/v1/models is open and /metrics needs a key', async () => {
    expect((await fetch(`${h.url}/v1/models`)).status).toBe(200);
    expect((await fetch(`${h.url}/metrics`)).status).toBe(401);
    const scraped = await fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${secret}` } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('# HELP');
  });
});

describe('governance off', () => {
  it('both stay open whatever the settings say', async () => {
    const h = await startHarness({ extraYaml: 'metrics: { require_key: true }\n' });
    try {
      expect((await fetch(`${h.url}/v1/models`)).status).toBe(200);
      expect((await fetch(`${h.url}/metrics`)).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
