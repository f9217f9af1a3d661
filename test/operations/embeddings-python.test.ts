// The Python openai SDK's embeddings (numpy-free: it asks for base64 and decodes it itself) through
// the gateway, same protocol and from a Cohere lane, with the real SDK in the test venv.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoVector } from '../../server/demo/demo-vector.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { pythonSdk, runPython, type PythonSdk } from '../support/python-sdk.ts';

const EMBED = `
import json, os, openai
client = openai.OpenAI(base_url=os.environ["BASE_URL"], api_key="client-key", max_retries=0)
raw = client.embeddings.with_raw_response.create(model=os.environ["MODEL"], input=["alpha beta", "gamma"])
answer = raw.parse()
print(json.dumps({"vectors": [d.embedding for d in answer.data], "tokens": answer.usage.prompt_tokens, "sent": raw.http_request.content.decode()}))
`;

const sdk: PythonSdk = pythonSdk();
const skip = 'skip' in sdk ? sdk.skip : undefined;
if (skip !== undefined) console.warn(`embeddings-python: skipped: ${skip}`);

let h: Harness;
beforeAll(async () => {
  if (skip !== undefined) return;
  h = await startHarness({
    sixProtocols: true,
    extraModelsYaml: '  e-openai: { provider: openai, model: text-embedding-3-small }\n  e-cohere: { provider: cohere, model: embed-v4.0 }\n',
  });
});
afterAll(() => h?.close());

describe.skipIf(skip !== undefined)('Python openai SDK embeddings', () => {
  it.each(['e-openai', 'e-cohere'])('lane %s: the vectors as the upstream made them (base64 asked by the SDK)', async (model) => {
    const python = (sdk as { python: string }).python;
    const out = JSON.parse(await runPython(python, EMBED, { BASE_URL: `${h.url}/v1`, MODEL: model })) as { vectors: number[][]; tokens: number; sent: string };
    expect(out.vectors).toEqual([demoVector('alpha beta'), demoVector('gamma')]);
    expect(out.tokens).toBe(3);
    expect(JSON.parse(out.sent)).toMatchObject({ encoding_format: 'base64' });
  });
});
