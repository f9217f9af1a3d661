// The operator's upstream credentials never reach a client: an upstream echoes the credential it
// received in every place it can (a response header, the answer whole, cut between two network
// reads, cut between two stream events or answer parts, an error body), for every ingress x egress
// protocol pair, streaming and not. Raw HTTP shows every byte the client got (status line, headers,
// body); none may hold the key or any 8-character piece of it. Official SDKs then read a few
// masked answers, to show the rewritten streams (event-stream frames included) still parse.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIAL_MARKER } from '../../server/gateway/credential-mask.ts';
import type { ProtocolId } from '../../server/ir/index.ts';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';
import { sdkClients } from '../matrix/sdk-clients.ts';
import { ANSWER_TEXT, PLACES, rawRequest, startEchoWorld, type EchoWorld, type Place } from './credential-echo-world.ts';

let world: EchoWorld;
beforeAll(async () => {
  world = await startEchoWorld();
});
afterAll(() => world?.close());

interface RawAnswer {
  readonly status: number;
  /** Status line, headers and body exactly as received (the body after chunked decoding). */
  readonly bytes: Buffer;
}

function send(url: string, path: string, body: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const head = `HTTP/${res.httpVersion} ${res.statusCode} ${res.statusMessage}\r\n${res.rawHeaders.map((v, i) => (i % 2 === 0 ? `${v}: ` : `${v}\r\n`)).join('')}\r\n`;
      const chunks: Buffer[] = [Buffer.from(head, 'latin1')];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The key itself or any 8-character piece of it, wherever it is in `bytes`. */
function leakIn(bytes: Buffer, key: string): string | undefined {
  const text = bytes.toString('latin1');
  for (let i = 0; i + 8 <= key.length; i++) {
    const at = text.indexOf(key.slice(i, i + 8));
    if (at !== -1) return `"${key.slice(i, i + 8)}" at ${at}: ...${text.slice(Math.max(0, at - 80), at + 40).replace(/\r?\n/g, ' | ')}...`;
  }
  return undefined;
}

const cells = PROTOCOL_IDS.flatMap((ingress) => PROTOCOL_IDS.flatMap((egress) => [false, true].map((stream) => ({ ingress, egress, stream }))));

describe('no echoed upstream credential reaches a client (raw HTTP, every place x 36 protocol pairs x stream or not)', () => {
  it.each(PLACES)(
    '%s',
    async (place: Place) => {
      const leaks: string[] = [];
      const unmasked: string[] = [];
      for (const { ingress, egress, stream } of cells) {
        const { path, body } = rawRequest(ingress, `m-${egress}`, stream);
        world.echoNext(egress, place, stream);
        const answer = await send(world.url, path, body);
        const name = `${ingress}->${egress} ${stream ? 'stream' : 'non-stream'}`;
        const leak = leakIn(answer.bytes, world.keys[egress]);
        if (leak !== undefined) leaks.push(`${name} (${answer.status}): ${leak}`);
        // The echo did arrive and the answer is still an answer: the marker stands where the key was.
        const expected = place === 'error' ? 400 : 200;
        if (answer.status !== expected) unmasked.push(`${name}: status ${answer.status}, ${answer.bytes.toString('latin1').slice(-300)}`);
        else if (place !== 'error' && !answer.bytes.includes(CREDENTIAL_MARKER))
          unmasked.push(`${name}: no ${CREDENTIAL_MARKER} in ${answer.bytes.toString('latin1').slice(-400)}`);
        else if (place !== 'error' && place !== 'header' && !answer.bytes.includes(ANSWER_TEXT)) unmasked.push(`${name}: the answer's text is gone`);
      }
      expect(world.echoed.length).toBeGreaterThan(0);
      expect(leaks, leaks.join('\n')).toEqual([]);
      expect(unmasked, unmasked.join('\n')).toEqual([]);
    },
    30_000,
  );

  it("the upstream really received (and echoed) each provider's key", () => {
    for (const p of PROTOCOL_IDS) expect(world.echoed).toContain(world.keys[p]);
  });
});

describe("Gemini's JSON-array stream (no alt=sse), every egress protocol", () => {
  it.each(PLACES)('%s', async (place: Place) => {
    const leaks: string[] = [];
    for (const egress of PROTOCOL_IDS) {
      world.echoNext(egress, place, true);
      const answer = await send(world.url, `/v1beta/models/m-${egress}:streamGenerateContent`, rawRequest('gemini', `m-${egress}`, true).body);
      const leak = leakIn(answer.bytes, world.keys[egress]);
      if (leak !== undefined) leaks.push(`gemini[array]->${egress} (${answer.status}): ${leak}`);
      expect(answer.status, `gemini[array]->${egress}`).toBe(place === 'error' ? 400 : 200);
    }
    expect(leaks, leaks.join('\n')).toEqual([]);
  });
});

describe('official SDKs read masked answers whole', () => {
  const cases: { ingress: ProtocolId; egress: ProtocolId; place: Place; stream: boolean }[] = [
    { ingress: 'openai', egress: 'openai', place: 'split-event', stream: true },
    { ingress: 'anthropic', egress: 'anthropic', place: 'split-read', stream: true },
    { ingress: 'bedrock', egress: 'bedrock', place: 'split-event', stream: true },
    { ingress: 'bedrock', egress: 'openai', place: 'body', stream: true },
    { ingress: 'gemini', egress: 'cohere', place: 'split-event', stream: true },
    { ingress: 'responses', egress: 'anthropic', place: 'split-event', stream: false },
    { ingress: 'cohere', egress: 'responses', place: 'split-read', stream: false },
    { ingress: 'anthropic', egress: 'anthropic', place: 'split-event', stream: false },
  ];
  it.each(cases)('$ingress -> $egress, key at $place, stream $stream', async ({ ingress, egress, place, stream }) => {
    world.echoNext(egress, place, stream);
    const text = await sdkClients(world.url)[ingress](`m-${egress}`, stream);
    expect(text).toBe(`${ANSWER_TEXT}${CREDENTIAL_MARKER}.`);
  });
});
