// A request refused while being translated for a lane (a 400 before anything goes upstream) must
// give back the lane's concurrency slot and any half-open probe: later requests are served.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ extraModelsYaml: '  one: { provider: anthropic, model: claude-sonnet-4-5, max_concurrent: 1 }\n' });
});
afterAll(() => h.close());

const ask = (content: unknown) =>
  fetch(`${h.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'one', messages: [{ role: 'user', content }] }) });

it('a 400 raised while translating does not leak the lane', async () => {
  for (let i = 0; i < 3; i++) {
    const refused = await ask([{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }]);
    expect(refused.status).toBe(400);
  }
  expect((await ask('hello')).status).toBe(200);
  const lane = h.gateway.routing.snapshot().find((p) => p.pool === 'one')?.lanes[0];
  expect(lane).toMatchObject({ inFlight: 0, state: 'closed', probeInFlight: false });
});
