// The data plane as two worker threads on one port: budgets, rate limits, breakers and lane
// concurrency hold exactly as with one, because routing state is one shared buffer and governance
// has one owner (the main thread). Requests use fresh connections, which the kernel spreads across
// the workers' sockets; each test checks that both workers served some.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openaiChatCompletion } from '../../server/demo/openai-replies.ts';
import { onNewConnection } from '../support/fresh-connection.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { upstreamGate } from '../support/mock-upstream.ts';
import { servedPerWorker } from '../support/served-per-worker.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    workers: 2,
    extraModelsYaml: [
      '  priced: { provider: openai, model: priced-upstream, price: { input: 1, output: 1 } }',
      '  flaky: { provider: openai, model: flaky-upstream }',
      '  narrow: { provider: openai, model: narrow-upstream, max_concurrent: 2 }',
      '',
    ].join('\n'),
    breakerYaml:
      'breaker: { consecutive_failures: 3, min_requests: 1000, open_ms: 400, jitter: 0, rate_limit_cooldown_ms: 0, max_rate_limit_cooldown_ms: 0, config_fault_cooldown_ms: 0 }\n',
    extraYaml: 'db_path: ./gateway.db\ngovernance: on\n',
  });
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

const post = (body: unknown, secret: string) =>
  onNewConnection(`${h.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify(body), headers: { authorization: `Bearer ${secret}` } });

async function createKey(body: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; secret: string };
}

/** Requests each worker has received since the last call. */
const servedSinceLastLook = servedPerWorker(() => h.gateway);

const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content: 'x' }], ...extra });

describe('two data-plane workers', () => {
  it('run as two threads (the main one and one more) on one port', async () => {
    const telemetry = await h.gateway.workerTelemetry();
    expect(telemetry.map((t) => t.worker)).toEqual([1, 2]);
  });

  it('a budget admitting 10 admits exactly 10 of 300 concurrent requests', async () => {
    await servedSinceLastLook();
    const worst = (Buffer.byteLength(JSON.stringify(chat('priced', { max_completion_tokens: 100_000 }))) + 100_000) * 100;
    const key = await createKey({ budget_cents: Math.floor((10.5 * worst) / 1_000_000) });
    const answer = JSON.stringify(
      openaiChatCompletion({ id: 'c', model: 'priced-upstream', text: 'one two three', usage: { prompt_tokens: 12, completion_tokens: 5 } }),
    );
    // The upstream answers only once every other request was refused (or after 20 s): no early
    // settlement can free budget, however loaded the machine.
    let refused = 0;
    const allDecided = upstreamGate(20_000);
    for (let i = 0; i < 12; i++)
      h.upstream.enqueue({ headers: { 'content-type': 'application/json' }, events: [answer.slice(0, 20), answer.slice(20)], waitFor: allDecided.opened });
    const results = await Promise.all(
      Array.from({ length: 300 }, () =>
        post(chat('priced', { max_completion_tokens: 100_000 }), key.secret).then((r) => {
          if (r.status === 402 && ++refused === 290) allDecided.open();
          return r;
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 402)).toHaveLength(290);
    expect(h.upstream.requests).toHaveLength(10);
    expect(h.gateway.governance!.getKey(key.id)!.spentMicrocents).toBe(10n * 17n * 100n);
    expect((await servedSinceLastLook()).every((n) => n > 0)).toBe(true);
  });

  it('every worker refuses an invalid key (401, asked of the main thread before the body) and reserves after the body (second message)', async () => {
    await servedSinceLastLook();
    const refused = await Promise.all(Array.from({ length: 40 }, () => post(chat('priced'), 'gwk_not-a-key')));
    expect(refused.map((r) => r.status)).toEqual(Array(40).fill(401));
    const key = await createKey({ budget_cents: 1000 });
    const served = await Promise.all(Array.from({ length: 40 }, () => post(chat('priced', { max_completion_tokens: 10 }), key.secret)));
    expect(served.map((r) => r.status)).toEqual(Array(40).fill(200));
    const state = h.gateway.governance!.getKey(key.id)!;
    expect(state.spentMicrocents).toBeGreaterThan(0n);
    expect(state.reservedMicrocents).toBe(0n);
    expect((await servedSinceLastLook()).every((n) => n > 0)).toBe(true);
  });

  it('rpm 20 admits exactly 20 of 300 concurrent requests', async () => {
    await servedSinceLastLook();
    const key = await createKey({ rpm: 20 });
    const results = await Promise.all(Array.from({ length: 300 }, () => post(chat('gpt'), key.secret)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(20);
    expect(results.filter((r) => r.status === 429)).toHaveLength(280);
    expect((await servedSinceLastLook()).every((n) => n > 0)).toBe(true);
  });

  it('a breaker trips on the third lane fault wherever the faults were served, and lets one probe through', async () => {
    const key = await createKey({});
    await servedSinceLastLook();
    const failure = { status: 500, json: { error: { message: 'boom', type: 'server_error', param: null, code: null } } };
    for (let i = 0; i < 40; i++) h.upstream.enqueue(failure);
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await post(chat('flaky'), key.secret)).status);
    expect(statuses.slice(0, 3)).toEqual([500, 500, 500]);
    expect(statuses.slice(3).every((s) => s === 503)).toBe(true);
    expect(h.upstream.requests).toHaveLength(3);
    expect((await servedSinceLastLook()).every((n) => n > 0)).toBe(true);

    // Open time over: of 20 concurrent requests on both workers, exactly one is the probe.
    await new Promise((resolve) => setTimeout(resolve, 500));
    h.upstream.reset();
    const answer = JSON.stringify(openaiChatCompletion({ id: 'c', model: 'flaky-upstream', text: 'ok' }));
    h.upstream.enqueue({ headers: { 'content-type': 'application/json' }, events: [answer.slice(0, 10), answer.slice(10)], delayMs: 300 });
    const probeRound = await Promise.all(Array.from({ length: 20 }, () => post(chat('flaky'), key.secret)));
    expect(probeRound.filter((r) => r.status === 200)).toHaveLength(1);
    expect(probeRound.filter((r) => r.status === 503)).toHaveLength(19);
    expect(h.upstream.requests).toHaveLength(1);
    // The probe's worker records its success just after the answer has gone out: wait for it.
    const lane = () => h.gateway.routing.snapshot().find((p) => p.pool === 'flaky')!.lanes[0]!;
    for (const deadline = Date.now() + 2000; lane().state !== 'closed' && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(lane()).toMatchObject({ state: 'closed', counters: { trips: 1, laneFaults: 3, successes: 1 } });
  });

  it('max_concurrent 2 holds across workers', async () => {
    const key = await createKey({});
    await servedSinceLastLook();
    const answer = JSON.stringify(openaiChatCompletion({ id: 'c', model: 'narrow-upstream', text: 'ok' }));
    for (let i = 0; i < 20; i++)
      h.upstream.enqueue({ headers: { 'content-type': 'application/json' }, events: [answer.slice(0, 10), answer.slice(10)], delayMs: 400 });
    const results = await Promise.all(Array.from({ length: 20 }, () => post(chat('narrow'), key.secret)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    expect(h.upstream.requests).toHaveLength(2);
    expect((await servedSinceLastLook()).every((n) => n > 0)).toBe(true);
    // Slots are given back just after each answer has gone out, possibly on the other worker.
    const inFlight = () => h.gateway.routing.snapshot().find((p) => p.pool === 'narrow')!.lanes[0]!.inFlight;
    for (const deadline = Date.now() + 2000; inFlight() !== 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(inFlight()).toBe(0);
  });
});
