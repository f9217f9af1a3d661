// Attack: every request carries the same client-chosen `x-request-id`, hoping the spend ledger
// deduplicates them as one request (it once keyed on that id, so 1,000 requests cost one). The
// ledger must key on the gateway's own id: each request is charged, the budget runs out and
// refuses, also across a restart of the gateway on the same database file.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { openaiChatCompletion } from '../../server/demo/openai-replies.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';

const dbPath = join(mkdtempSync(join(tmpdir(), 'replay-id-')), 'gateway.db');
// 100 USD per million tokens: 10,000 µ¢ a token.
const start = () =>
  startHarness({
    extraModelsYaml: '  dear: { provider: openai, model: dear-upstream, price: { input: 100, output: 100 } }\n',
    extraYaml: `db_path: ${dbPath}\ngovernance: on\n`,
  });
/** Each answer reports 20 tokens: 200,000 µ¢. */
const COST = 200_000n;
const answer = () => ({ json: openaiChatCompletion({ id: 'c', model: 'dear-upstream', text: 'hi', usage: { prompt_tokens: 10, completion_tokens: 10 } }) });

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function client(secret: string): OpenAI {
  return new OpenAI({ baseURL: `${h!.url}/v1`, apiKey: secret, maxRetries: 0, defaultHeaders: { 'x-request-id': 'replay-1' } });
}

/** Sends requests with the replayed id until the budget refuses one (or `limit` were served). */
async function spendUntilRefused(secret: string, limit: number): Promise<{ served: number; refused: boolean }> {
  const openai = client(secret);
  let served = 0;
  for (let i = 0; i < limit; i++) {
    h!.upstream.enqueue(answer());
    try {
      const { response } = await openai.chat.completions
        .create({ model: 'dear', max_completion_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
        .withResponse();
      expect(response.headers.get('x-request-id')).toBe('replay-1'); // still echoed
      served++;
    } catch (error) {
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(402);
      h!.upstream.reset();
      return { served, refused: true };
    }
  }
  return { served, refused: false };
}

describe('a replayed client x-request-id', () => {
  it('is charged on every request, and the budget refuses once it is spent, across a restart on the same database', async () => {
    h = await start();
    // Worst case per request: (body bytes + 5 output tokens) × 10,000 µ¢; 3 cents admit about 14.
    const created = await fetch(`${h.adminUrl}/api/v1/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ budget_cents: 3 }),
    });
    const key = (await created.json()) as { id: string; secret: string };

    const before = await spendUntilRefused(key.secret, 6);
    expect(before).toEqual({ served: 6, refused: false });
    expect(h.gateway.governance!.getKey(key.id)!.spentMicrocents).toBe(6n * COST);
    await h.close();

    h = await start(); // same db file: spend and ledger rows are reloaded
    expect(h.gateway.governance!.getKey(key.id)!.spentMicrocents).toBe(6n * COST);
    const after = await spendUntilRefused(key.secret, 100);
    expect(after.refused).toBe(true);
    expect(after.served).toBeGreaterThan(0);
    const served = 6 + after.served;
    expect(h.gateway.governance!.getKey(key.id)!.spentMicrocents).toBe(BigInt(served) * COST);
    expect(BigInt(served) * COST).toBeLessThanOrEqual(3_000_000n);
    await h.close();
    h = undefined;

    // One ledger row per served request, none keyed on the client's id.
    const db = new DatabaseSync(dbPath, { readOnly: true });
    const rows = db.prepare('SELECT request_id FROM spend_ledger WHERE key_id = ?').all(key.id) as { request_id: string }[];
    db.close();
    expect(rows).toHaveLength(served);
    expect(new Set(rows.map((r) => r.request_id)).size).toBe(served);
    expect(rows.map((r) => r.request_id)).not.toContain('replay-1');
  });
});
