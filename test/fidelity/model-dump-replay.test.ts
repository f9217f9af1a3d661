// Python applications pass an answer's content back with model_dump(), which writes every unset
// optional field as null (`"caller": null`, `"refusal": null`, ...), and stateless Responses clients
// replay their encrypted reasoning without an id. The providers take both; so must the gateway, on
// a lane of the same protocol (forwarded as sent) and on every other (the nulls read as absent).
// The real Python SDKs (test/support/python-sdk.ts, pinned there) run the loop against a real gateway.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProtocolId } from '../../server/ir/index.ts';
import { pythonSdk, runPython } from '../support/python-sdk.ts';
import { laneModel, startSixLaneHarness, type SixLaneHarness } from '../support/six-lane-harness.ts';
import { textAnswer, toolCallAnswer } from './upstream-answers.ts';

const sdk = pythonSdk();
const skip = 'skip' in sdk ? sdk.skip : undefined;
if (skip !== undefined) console.warn(`model-dump-replay: skipped: ${skip}`);
const SCRIPT = readFileSync(new URL('python/model_dump_replay.py', import.meta.url), 'utf8');

let h: SixLaneHarness;
beforeAll(async () => {
  if (skip === undefined) h = await startSixLaneHarness();
});
afterAll(() => h?.close());

const LANES: ProtocolId[] = ['openai', 'responses', 'anthropic', 'gemini', 'bedrock', 'cohere'];
/** Per Python SDK, a member model_dump() wrote as null that only its own protocol may see. */
const SCENARIOS: { client: 'anthropic' | 'openai' | 'responses'; dumpedNull: string }[] = [
  { client: 'anthropic', dumpedNull: 'caller' },
  { client: 'openai', dumpedNull: 'refusal' },
  { client: 'responses', dumpedNull: 'status' },
];

/** The second request carries the replayed call and its result (checked loosely: each lane spells them its own way). */
function replayedCall(lane: ProtocolId, body: string): boolean {
  // Gemini pairs a call with its result by name (its calls here had no id).
  return (lane === 'gemini' || body.includes('call_weather_1')) && body.includes('get_weather') && body.includes('18C');
}

describe.skipIf(skip !== undefined).each(SCENARIOS)('Python $client SDK: model_dump() replay', ({ client, dumpedNull }) => {
  it('runs the two-turn tool loop on every lane, same protocol forwarded with its nulls', async () => {
    h.upstream.reset();
    for (const lane of LANES) h.upstream.enqueue(toolCallAnswer(lane), textAnswer(lane));
    const out = await runPython((sdk as { python: string }).python, SCRIPT, {}, [h.url, client, ...LANES.map(laneModel)]);
    const results = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { model: string; text?: string; error?: string });
    expect(results.map((r) => r.model)).toEqual(LANES.map(laneModel));
    for (const [i, lane] of LANES.entries()) {
      expect(results[i], `${client} client to ${lane} lane`).toEqual({ model: laneModel(lane), text: 'It is 18C.' });
      const second = h.upstream.requests[i * 2 + 1]!.rawBody.toString('utf8');
      expect(replayedCall(lane, second), `${lane} lane, second request: ${second}`).toBe(true);
      const nulled = new RegExp(`"${dumpedNull}":\\s*null`);
      if (lane === client) expect(second, 'forwarded as the client sent it').toMatch(nulled);
      else expect(second, `the dumped null reached the ${lane} lane`).not.toMatch(nulled);
    }
    if (client === 'responses') {
      // The encrypted reasoning went back without its id, and OpenAI got it as sent.
      const replay = JSON.parse(h.upstream.requests[3]!.rawBody.toString('utf8')) as { input: Record<string, unknown>[] };
      const reasoning = replay.input.find((item) => item.type === 'reasoning');
      expect(reasoning).toMatchObject({ encrypted_content: 'gAAAA-encrypted' });
      expect(reasoning).not.toHaveProperty('id');
    }
  }, 120_000);
});
