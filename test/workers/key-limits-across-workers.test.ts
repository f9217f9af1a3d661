// A period budget, a team budget and a tpm hold exactly with two data-plane workers: of 300
// concurrent requests on fresh connections (spread by the kernel over both workers' sockets),
// exactly the 10 that fit are admitted, because every decision is the governance owner's (the main
// thread), one at a time. The upstream answers only once every other request was refused, so no
// early settlement can free room.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openaiChatCompletion } from '../../server/demo/openai-replies.ts';
import type { NewKey } from '../../server/governance/key-record.ts';
import { onNewConnection } from '../support/fresh-connection.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { upstreamGate } from '../support/mock-upstream.ts';
import { servedPerWorker } from '../support/served-per-worker.ts';

const CONCURRENT = 300;
const FITS = 10;
const BODY = JSON.stringify({ model: 'priced', max_completion_tokens: 100_000, messages: [{ role: 'user', content: 'x' }] });
/** Tokens admission holds for BODY: its bytes (a token is at least one) and its output limit. */
const WORST_TOKENS = Buffer.byteLength(BODY) + 100_000;
/** `priced` costs $1 per million tokens either way: 100 µ¢ a token. */
const WORST_MICROCENTS = WORST_TOKENS * 100;
/** Room for 10.5 requests' worst case, in whole cents: 10 fit, the 11th does not. */
const TEN_AND_A_HALF_CENTS = Math.floor((10.5 * WORST_MICROCENTS) / 1_000_000);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    workers: 2,
    extraModelsYaml: '  priced: { provider: openai, model: priced-upstream, price: { input: 1, output: 1 } }\n',
    extraYaml: `db_path: ./gateway.db\ngovernance: on\nteams:\n  eng: { budget_cents: ${TEN_AND_A_HALF_CENTS}, budget_period: monthly }\n`,
  });
});
afterAll(() => h.close());

const key = (spec: NewKey) => h.gateway.governance!.createKey(spec);

/** Requests each worker has received since the last call. */
const servedSinceLastLook = servedPerWorker(() => h.gateway);

/**
 * Sends CONCURRENT requests (the i-th with secrets[i % n]) while the upstream holds its answers
 * until all but FITS were refused; the statuses and error codes of the answers.
 */
async function race(secrets: readonly string[], refusedStatus: number): Promise<{ status: number; code: string | undefined }[]> {
  h.upstream.reset();
  await servedSinceLastLook();
  const answer = JSON.stringify(
    openaiChatCompletion({ id: 'c', model: 'priced-upstream', text: 'one two three', usage: { prompt_tokens: 12, completion_tokens: 5 } }),
  );
  const allDecided = upstreamGate(20_000);
  for (let i = 0; i < FITS + 2; i++)
    h.upstream.enqueue({ headers: { 'content-type': 'application/json' }, events: [answer.slice(0, 20), answer.slice(20)], waitFor: allDecided.opened });
  let refused = 0;
  const results = await Promise.all(
    Array.from({ length: CONCURRENT }, async (_, i) => {
      const res = await onNewConnection(`${h.url}/v1/chat/completions`, {
        method: 'POST',
        body: BODY,
        headers: { authorization: `Bearer ${secrets[i % secrets.length]}` },
      });
      const body = JSON.parse(res.body) as { error?: { code?: string } };
      if (res.status === refusedStatus && ++refused === CONCURRENT - FITS) allDecided.open();
      return { status: res.status, code: body.error?.code };
    }),
  );
  expect(h.upstream.requests).toHaveLength(FITS);
  expect((await servedSinceLastLook()).every((n) => n > 0)).toBe(true);
  return results;
}

function expectExactly(results: { status: number; code: string | undefined }[], refusedStatus: number, code: string): void {
  expect(results.filter((r) => r.status === 200)).toHaveLength(FITS);
  expect(results.filter((r) => r.status === refusedStatus && r.code === code)).toHaveLength(CONCURRENT - FITS);
}

describe('key limits across two workers', () => {
  it(`a daily budget admitting ${FITS} admits exactly ${FITS} of ${CONCURRENT}`, async () => {
    const created = key({ budgetMicrocents: BigInt(TEN_AND_A_HALF_CENTS) * 1_000_000n, budgetPeriod: 'daily' });
    expectExactly(await race([created.secret], 402), 402, 'budget_exceeded');
    const state = h.gateway.governance!.getKey(created.key.id)!;
    expect(state.periodSpentMicrocents).toBe(BigInt(FITS) * 17n * 100n);
    expect(state.reservedMicrocents).toBe(0n);
  });

  it(`a team budget admitting ${FITS} admits exactly ${FITS} of ${CONCURRENT}, spread over three of its keys`, async () => {
    const secrets = [key({ team: 'eng' }), key({ team: 'eng' }), key({ team: 'eng' })].map((k) => k.secret);
    expectExactly(await race(secrets, 402), 402, 'team_budget_exceeded');
    const team = (await h.gateway.governance!.listTeams()).find((t) => t.name === 'eng')!;
    expect(team).toMatchObject({ configured: true, periodSpentMicrocents: BigInt(FITS) * 17n * 100n, reservedMicrocents: 0n, keys: 3 });
  });

  it('GET /stats answers on every worker (the main thread reads the snapshot), narrowed to the key', async () => {
    await servedSinceLastLook();
    const { secret } = key({ models: ['priced'] });
    const answers = await Promise.all(Array.from({ length: 40 }, () => onNewConnection(`${h.url}/stats`, { headers: { authorization: `Bearer ${secret}` } })));
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
    for (const answer of answers) expect((JSON.parse(answer.body) as { pools: { pool: string }[] }).pools.map((p) => p.pool)).toEqual(['priced']);
    expect((await servedSinceLastLook()).every((n) => n > 0)).toBe(true);
  });

  it(`a tpm admitting ${FITS} worst cases admits exactly ${FITS} of ${CONCURRENT}`, async () => {
    const created = key({ tpm: Math.floor(10.5 * WORST_TOKENS) });
    expectExactly(await race([created.secret], 429), 429, 'tokens_per_minute_exceeded');
  });
});
