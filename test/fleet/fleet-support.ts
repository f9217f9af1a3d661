// What the fleet tests share: the request they send, its worst case and real cost, and a look
// into the shared database.
import pg from 'pg';
import { openaiChatCompletion } from '../../server/demo/openai-replies.ts';
import { PRICE_MICROCENTS_PER_TOKEN } from '../support/gateway-fleet.ts';

export const MAX_TOKENS = 100_000;
export const CHAT = { model: 'priced', messages: [{ role: 'user' as const, content: 'x' }], max_completion_tokens: MAX_TOKENS };
/** The reservation admission.ts makes for CHAT: its bytes as input tokens plus its output limit. */
export const WORST_MICROCENTS = BigInt(Buffer.byteLength(JSON.stringify(CHAT)) + MAX_TOKENS) * PRICE_MICROCENTS_PER_TOKEN;
/** The upstream's answer reports 12 + 5 tokens. */
export const COST_MICROCENTS = 17n * PRICE_MICROCENTS_PER_TOKEN;
export const ANSWER = JSON.stringify(
  openaiChatCompletion({ id: 'c', model: 'priced-upstream', text: 'one two three', usage: { prompt_tokens: 12, completion_tokens: 5 } }),
);

export interface KeyFigures {
  spent: bigint;
  reserved: bigint;
  reservations: number;
  /** Ledger rows of settled requests, and the ones the lease rule wrote. */
  settledRows: number;
  leaseRows: number;
  ledgerTotal: bigint;
}

/** The key's figures as the database holds them (the truth every node shares). */
export async function keyFigures(url: string, keyId: string): Promise<KeyFigures> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const key = (await client.query('SELECT spent_microcents, reserved_microcents FROM gateway_keys WHERE id = $1', [keyId])).rows[0];
    const reservations = (await client.query('SELECT count(*)::int AS n FROM gateway_reservations WHERE key_id = $1', [keyId])).rows[0].n as number;
    const ledger = (
      await client.query(
        "SELECT count(*) FILTER (WHERE request_id NOT LIKE 'lease:%')::int AS settled, count(*) FILTER (WHERE request_id LIKE 'lease:%')::int AS lease, coalesce(sum(cost_microcents), 0)::text AS total FROM gateway_spend_ledger WHERE key_id = $1",
        [keyId],
      )
    ).rows[0];
    return {
      spent: BigInt(key.spent_microcents),
      reserved: BigInt(key.reserved_microcents),
      reservations,
      settledRows: ledger.settled,
      leaseRows: ledger.lease,
      ledgerTotal: BigInt(ledger.total),
    };
  } finally {
    await client.end();
  }
}

/** The tokens admission.ts holds against a tpm for CHAT: its bytes as input tokens plus its output limit. */
export const WORST_TOKENS = Buffer.byteLength(JSON.stringify(CHAT)) + MAX_TOKENS;
/** The upstream's answer's real tokens (input + output). */
export const REAL_TOKENS = 17;
