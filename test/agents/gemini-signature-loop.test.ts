// Gemini 3 refuses a function-call turn that comes back without the thoughtSignature it issued.
// Clients of the five protocols with no slot for it must still get through a whole tool loop on
// a Gemini lane: the signature rides in the tool-call id they echo (shared/signature-carrier.ts).
// The upstream below signs calls and refuses, with 400, any history that lost a signature.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../server/app/start-gateway.ts';
import { splitCarriedId } from '../../server/protocols/shared/signature-carrier.ts';
import { FINAL_TEXT, S1, S2, startGemini3Upstream, type Gemini3Upstream } from './support/gemini3-upstream.ts';
import { startSixLaneGateway } from './support/six-lane-gateway.ts';
import { toolLoops, type LoopClient } from './support/tool-loop-clients.ts';

let upstream: Gemini3Upstream;
let gateway: RunningGateway;

beforeAll(async () => {
  upstream = await startGemini3Upstream();
  gateway = await startSixLaneGateway(upstream.url);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

const CLIENTS: LoopClient[] = ['openai', 'responses', 'anthropic', 'bedrock', 'cohere'];

describe.each(CLIENTS)('a %s client in a tool loop on a Gemini 3 lane', (client) => {
  it.each([false, true])('stream %s: every signature comes back on its call, and the loop ends', async (stream) => {
    upstream.bodies.length = 0;
    upstream.refusals.length = 0;
    const { text, callIds } = await toolLoops(gateway.dataUrl)[client]('m-gemini', stream);

    expect(upstream.refusals).toEqual([]);
    expect(text).toBe(FINAL_TEXT);
    expect(upstream.bodies).toHaveLength(3);
    // The last request replays both signed calls, each with its own signature, and the unsigned one without.
    const replayed = upstream.bodies[2]!.contents.filter((c) => c.role === 'model').flatMap((c) => c.parts);
    expect(replayed.map((p) => [p.functionCall?.name, p.functionCall?.args, p.thoughtSignature])).toEqual([
      ['read_file', { path: 'a.ts' }, S1],
      ['read_file', { path: 'b.ts' }, undefined],
      ['run_tests', { filter: 'auth' }, S2],
    ]);
    // Gemini is never sent a carrier (or any id); the client saw the signature inside the id.
    expect(JSON.stringify(upstream.bodies[2])).not.toContain('gtsb_');
    expect(callIds.map((id) => splitCarriedId(id).signature?.value)).toEqual([S1, undefined, S2]);
    expect(splitCarriedId(callIds[2]!).id).toBe('fc-7f3a');
    for (const id of callIds) expect(id).toMatch(/^[A-Za-z0-9_-]+$/); // Anthropic's and Bedrock's id pattern
  });
});
