// Attack: read a stream up to its last content piece and hang up before its end (where the usage
// report comes), or abort a non-stream request once it was sent upstream, hoping the gateway
// refunds the reservation (it once did: 50 such streams were charged 0). Once the request reached
// an upstream it is settled, on its usage when one arrived, else on an estimate, never zero.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicStreamEvents } from '../../server/demo/anthropic-replies.ts';
import { openaiChatStreamEvents } from '../../server/demo/openai-replies.ts';
import { RecordCollector } from '../support/record-collector.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';

const records = new RecordCollector();
let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    observers: [records],
    extraModelsYaml: [
      '  priced: { provider: openai, model: priced-upstream, price: { input: 1, output: 1 } }',
      '  priced-claude: { provider: anthropic, model: priced-claude-upstream, max_tokens: 512, price: { input: 1, output: 1 } }',
      '',
    ].join('\n'),
    extraYaml: 'db_path: ./gateway.db\ngovernance: on\n',
  });
});
afterAll(() => h.close());

async function createKey(): Promise<{ id: string; secret: string }> {
  const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ budget_cents: 100_000 }),
  });
  return (await res.json()) as { id: string; secret: string };
}

const TEXT = 'the whole answer is here';
/** An upstream stream that stalls for 3 s after its last content piece, before its end and usage report. */
function stallingStream(protocol: 'openai' | 'anthropic') {
  const events =
    protocol === 'openai'
      ? openaiChatStreamEvents(
          { id: 'c', model: 'priced-upstream', text: TEXT, usage: { prompt_tokens: 30, completion_tokens: 40 } },
          { includeUsage: true, textPieces: 3 },
        )
      : anthropicStreamEvents({ id: 'msg_1', model: 'priced-claude-upstream', text: TEXT, usage: { input_tokens: 30, output_tokens: 40 } }, { textPieces: 3 });
  const end = events.findIndex((e) => (protocol === 'openai' ? e.includes('"finish_reason":"stop"') : e.includes('content_block_stop')));
  return { events, pauseAfter: end, pauseMs: 3000 };
}

describe('a client that leaves once its request reached an upstream', () => {
  it('50 streams read to their last content piece, then closed, are each charged; spent is their sum', async () => {
    const key = await createKey();
    records.clear();
    const openai = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: key.secret, maxRetries: 0 });
    // Half same protocol (bytes relayed), half translated (OpenAI client, Anthropic upstream).
    const models = Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? 'priced' : 'priced-claude'));
    for (const model of models) h.upstream.enqueue(stallingStream(model === 'priced' ? 'openai' : 'anthropic'));
    const received = await Promise.all(
      models.map(async (model) => {
        const stream = await openai.chat.completions.create({
          model,
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: 'tell me' }],
        });
        let text = '';
        for await (const chunk of stream) {
          text += chunk.choices[0]?.delta.content ?? '';
          if (text === TEXT) break; // the last content piece: hang up (the SDK aborts the request)
        }
        return text;
      }),
    );
    expect(received.every((t) => t === TEXT)).toBe(true);
    await records.atLeast(50);
    expect(records.records).toHaveLength(50);
    for (const record of records.records) {
      expect(record.clientGone).toBe(true);
      expect(record.costMicrocents).toBeGreaterThan(0n);
    }
    const charged = records.records.reduce((sum, r) => sum + r.costMicrocents!, 0n);
    const state = h.gateway.governance!.getKey(key.id)!;
    expect(state.spentMicrocents).toBe(charged);
    expect(state.reservedMicrocents).toBe(0n);
  });

  it('a non-stream request aborted after it was sent upstream is charged its whole output limit, not refunded', async () => {
    const key = await createKey();
    records.clear();
    h.upstream.reset();
    h.upstream.enqueue({ fault: 'hang' }); // the upstream is working on it
    const openai = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: key.secret, maxRetries: 0 });
    const abort = new AbortController();
    const call = openai.chat.completions.create(
      { model: 'priced', max_completion_tokens: 1000, messages: [{ role: 'user', content: 'a long question' }] },
      { signal: abort.signal },
    );
    while (h.upstream.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    abort.abort();
    await expect(call).rejects.toThrow();
    await records.atLeast(1);
    expect(records.records).toHaveLength(1);
    const [record] = records.records;
    expect(record!.clientGone).toBe(true);
    // The upstream may finish and bill it: the 1,000 output tokens it may write at $1 per million
    // (100 microcents a token) are charged, plus the prompt's estimate.
    expect(record!.costMicrocents).toBeGreaterThan(1000n * 100n);
    const state = h.gateway.governance!.getKey(key.id)!;
    expect(state.spentMicrocents).toBe(record!.costMicrocents);
    expect(state.reservedMicrocents).toBe(0n);
  });

  it('a request that never reached an upstream (refused by the gateway) is not charged', async () => {
    const key = await createKey();
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.secret}` },
      body: JSON.stringify({ model: 'priced', messages: [{ role: 'nobody', content: 'x' }] }),
    });
    expect(res.status).toBe(400);
    const state = h.gateway.governance!.getKey(key.id)!;
    expect(state.spentMicrocents).toBe(0n);
    expect(state.reservedMicrocents).toBe(0n);
  });
});
