// Faults after commit: an upstream reporting absurd usage (completion_tokens 1e21 once overflowed
// the ledger's 64-bit bind), and a store that fails (here a closed database handle, as a full disk
// would). The answer was committed, so the fault is the request's own: its usage is clamped and
// logged, or its record is marked failed with the cause logged. It never reaches routing: no
// breaker charge, no failover, no second lane's answer after the first, no other request failed.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openaiChatCompletion, openaiChatStreamEvents } from '../../server/demo/openai-replies.ts';
import { MAX_TOKENS_PER_COUNT } from '../../server/governance/usage-ceiling.ts';
import { createLogger } from '../../server/shared/logger.ts';
import { RecordCollector } from '../support/record-collector.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';

const records = new RecordCollector();
const logLines: Record<string, unknown>[] = [];
let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    observers: [records],
    log: createLogger('info', { write: (line: string) => void logLines.push(JSON.parse(line) as Record<string, unknown>) }),
    extraModelsYaml: [
      '  priced: { provider: openai, model: priced-upstream, price: { input: 1, output: 1 } }',
      '  backup: { provider: openai, model: backup-upstream, price: { input: 1, output: 1 } }',
      '',
    ].join('\n'),
    extraYaml: 'db_path: ./gateway.db\ngovernance: on\npools:\n  pair: { members: [ { model: priced, weight: 1 }, { model: backup, weight: 1 } ] }\n',
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.upstream.reset();
  records.clear();
  logLines.length = 0;
});

async function createKey(): Promise<{ id: string; secret: string }> {
  const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ budget_cents: 10_000_000 }),
  });
  return (await res.json()) as { id: string; secret: string };
}

/** Every lane of the pool: no fault was recorded, no failover happened. */
function expectRoutingUntouched(): void {
  const pair = h.gateway.routing.snapshot().find((p) => p.pool === 'pair')!;
  expect(pair.failovers).toBe(0);
  for (const lane of pair.lanes) {
    expect(lane.counters.laneFaults).toBe(0);
    expect(lane.consecutiveFailures).toBe(0);
  }
}

const usageOf = (completion: number) => ({ prompt_tokens: 10, completion_tokens: completion });

describe('absurd usage from an upstream', () => {
  it('completion_tokens 1e21 (non-stream and stream) is clamped to the ceiling, logged, and the answer stands', async () => {
    const key = await createKey();
    const openai = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: key.secret, maxRetries: 0 });
    h.upstream.enqueue({ json: openaiChatCompletion({ id: 'c1', model: 'priced-upstream', text: 'one', usage: usageOf(1e21) }) });
    const answer = await openai.chat.completions.create({ model: 'pair', messages: [{ role: 'user', content: 'x' }] });
    expect(answer.choices[0]!.message.content).toBe('one');

    h.upstream.enqueue({ events: openaiChatStreamEvents({ id: 'c2', model: 'priced-upstream', text: 'two', usage: usageOf(1e21) }, { includeUsage: true }) });
    const stream = await openai.chat.completions.create({
      model: 'pair',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'x' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('two');

    await records.atLeast(2);
    // 10 input tokens and the ceiling's output tokens, at 100 µ¢ a token.
    const each = BigInt(10 + MAX_TOKENS_PER_COUNT) * 100n;
    expect(records.records.map((r) => r.costMicrocents)).toEqual([each, each]);
    expect(h.gateway.governance!.getKey(key.id)!.spentMicrocents).toBe(2n * each);
    const clamped = logLines.filter((l) => String(l.msg).includes('clamped'));
    expect(clamped).toHaveLength(2);
    expect(JSON.stringify(clamped[0]!.clamped)).toContain('"reported":1e+21');
    expect(h.upstream.requests).toHaveLength(2); // one attempt each
    expectRoutingUntouched();
  });

  it('negative and fractional counts are billed as 0 and rounded up', async () => {
    const key = await createKey();
    h.upstream.enqueue({
      json: openaiChatCompletion({ id: 'c', model: 'priced-upstream', text: 'ok', usage: { prompt_tokens: -50, completion_tokens: 2.2 } }),
    });
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.secret}` },
      body: JSON.stringify({ model: 'priced', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(200);
    await records.atLeast(1);
    expect(h.gateway.governance!.getKey(key.id)!.spentMicrocents).toBe(3n * 100n);
    expect(logLines.filter((l) => String(l.msg).includes('clamped'))).toHaveLength(1);
  });
});

describe('a store that fails after commit (closed database handle)', () => {
  it("fails only each request's own record: every client gets its one answer, no lane is charged, nothing fails over", async () => {
    const key = await createKey();
    h.gateway.governance!.close(); // keys and budgets stay in memory; every write now fails
    const openai = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: key.secret, maxRetries: 0 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        if (i % 2 === 0) {
          const answer = await openai.chat.completions.create({ model: 'pair', messages: [{ role: 'user', content: `n${i}` }] });
          return answer.choices[0]!.message.content;
        }
        const stream = await openai.chat.completions.create({ model: 'pair', stream: true, messages: [{ role: 'user', content: `s${i}` }] });
        let ids = new Set<string>();
        let text = '';
        for await (const chunk of stream) {
          ids = ids.add(chunk.id);
          text += chunk.choices[0]?.delta.content ?? '';
        }
        expect(ids.size).toBe(1); // one answer, not a second lane's appended to it
        return text;
      }),
    );
    // The mock echoes the last user message: each client got its own answer, whole.
    answers.forEach((text, i) => expect(text).toContain(i % 2 === 0 ? `n${i}` : `s${i}`));
    expect(h.upstream.requests).toHaveLength(20);
    await records.atLeast(20);
    expect(records.records).toHaveLength(20);
    for (const record of records.records) {
      expect(record.status).toBe(200);
      expect(record.attempts).toHaveLength(1);
      expect(record.errorCode).toBe('settlement_failed');
    }
    const failures = logLines.filter((l) => String(l.msg).startsWith('spend settlement failed'));
    expect(failures).toHaveLength(20);
    expect(JSON.stringify(failures[0]!.err)).toMatch(/not open/i); // the cause is logged
    expectRoutingUntouched();
    // The reservations stay held: the budget keeps counting the worst case of the unrecorded spend.
    expect(h.gateway.governance!.getKey(key.id)!.reservedMicrocents).toBeGreaterThan(0n);
  });
});
