// GET /v1/models and /v1/models/{id}: the operator's model and pool names with the operations each
// serves, through the SDKs that call them (openai models.list and retrieve, Anthropic models.list
// and retrieve, @google/genai models.list), the gateway's `operations` member beside OpenAI's shape.
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';

let h: Harness;
let secret: string;

beforeAll(async () => {
  h = await startHarness({
    extraModelsYaml:
      '  embed: { provider: openai, model: text-embedding-3-small }\n' + '  whisper: { provider: openai, model: whisper-1, operations: [audio] }\n',
    extraYaml: 'db_path: ./gateway.db\ngovernance: on\npools:\n  mixed: { members: [ { model: gpt }, { model: embed } ] }\n',
  });
  const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  secret = ((await res.json()) as { secret: string }).secret;
});
afterAll(() => h.close());

type Listed = OpenAI.Models.Model & { operations: string[] };

describe('OpenAI shape', () => {
  it("models.list(): every model and pool, OpenAI's members, and what each serves", async () => {
    const openai = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: secret, maxRetries: 0 });
    const models = [] as Listed[];
    for await (const model of openai.models.list()) models.push(model as Listed);
    const byId = new Map(models.map((m) => [m.id, m]));
    expect(byId.get('gpt')).toMatchObject({ object: 'model', owned_by: 'openai', operations: ['chat', 'count_tokens'], created: expect.any(Number) });
    // The catalog says text-embedding-3-small serves embeddings; the config said nothing.
    expect(byId.get('embed')!.operations).toEqual(['embeddings']);
    expect(byId.get('whisper')!.operations).toEqual(['audio']);
    expect(byId.get('mixed')).toMatchObject({ owned_by: 'pool' });
    expect(byId.get('mixed')!.operations.sort()).toEqual(['chat', 'count_tokens', 'embeddings']);
  });

  it("models.retrieve(id): one entry; an unknown id is a 404 in OpenAI's shape", async () => {
    const openai = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: secret, maxRetries: 0 });
    expect(await openai.models.retrieve('whisper')).toMatchObject({ id: 'whisper', object: 'model', operations: ['audio'] });
    const missing = await openai.models.retrieve('nope').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    expect((missing as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
    await expect(new OpenAI({ baseURL: `${h.url}/v1`, apiKey: 'gwk_wrong', maxRetries: 0 }).models.retrieve('gpt')).rejects.toMatchObject({ status: 401 });
  });
});

describe("the other protocols' shapes", () => {
  it('Anthropic models.list and retrieve', async () => {
    const anthropic = new Anthropic({ baseURL: h.url, apiKey: secret, maxRetries: 0 });
    const page = await anthropic.models.list();
    expect(page.data.map((m) => m.id)).toContain('claude');
    expect(await anthropic.models.retrieve('claude')).toMatchObject({ type: 'model', id: 'claude' });
  });

  it('@google/genai models.list: names as models/{id}, the methods each supports', async () => {
    const ai = new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl: h.url } });
    const names: { name?: string; supportedActions?: string[] }[] = [];
    for await (const model of await ai.models.list()) names.push(model);
    const embed = names.find((m) => m.name === 'models/embed');
    expect(embed?.supportedActions).toEqual(['embedContent', 'batchEmbedContents']);
  });
});
