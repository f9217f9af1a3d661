// The corpus of real payloads (test/fixtures/real, SOURCES.md) through every ingress and egress
// pair against the mock upstream: every request to every lane, and every recorded answer back to
// every client protocol. Each is carried faithfully (same protocol: byte for byte, apart from the
// model; across: every text, tool call, tool result, image and tool that has a slot arrives), or
// refused with a 400 that names the field. The refusals are listed in docs/protocols.md, checked
// here so the list cannot drift (UPDATE_CORPUS_DOC=1 rewrites it).
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatRequest, ProtocolId } from '../../server/ir/index.ts';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';
import { replaceTopLevelString } from '../../server/protocols/passthrough.ts';
import { requestStreamUsage } from '../../server/protocols/openai/stream-usage-request.ts';
import { codecFor } from '../../server/protocols/registry.ts';
import { withoutAbsentNulls } from '../../server/protocols/shared/absent-nulls.ts';
import { laneModel, startSixLaneHarness, upstreamModelOf, type SixLaneHarness } from '../support/six-lane-harness.ts';
import { CLIENT_HEADERS, clientPath, minimalRequest } from './client-calls.ts';
import { comparable, requestDigest, responseDigest } from './content-digest.ts';
import { corpusAnswers, corpusRequests, type CorpusAnswer, type CorpusRequest } from './corpus.ts';
import { streamContent, streamError, streamFinish } from './stream-content.ts';
import { textAnswer } from './upstream-answers.ts';
import { streamedTextAnswer } from './upstream-streams.ts';

let h: SixLaneHarness;
beforeAll(async () => {
  // No image URL is fetched here (the corpus names public hosts, and tests reach no network):
  // Bedrock lanes refuse them as they do with media_fetch off. test/cross/image-url-bedrock covers fetching.
  h = await startSixLaneHarness({ extraYaml: 'media_fetch: { enabled: false }' });
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

const DOC = new URL('../../docs/protocols.md', import.meta.url).pathname;
const START = '<!-- corpus-refusals:start (written by test/fidelity/corpus-replay.test.ts) -->';
const END = '<!-- corpus-refusals:end -->';
const refusals: string[] = [];

const REQUESTS = corpusRequests();
const ANSWERS = corpusAnswers();

function sendBytes(request: CorpusRequest, egress: ProtocolId): Buffer {
  return codecFor(request.protocol)!.bodyCarriesModel ? replaceTopLevelString(request.bytes, 'model', laneModel(egress)) : request.bytes;
}

/** What the upstream received, read back as IR by the lane's own codec. */
function upstreamIr(egress: ProtocolId, path: string, body: Record<string, unknown>): ChatRequest {
  const pathModel = /\/models\/([^:/]+):/.exec(path)?.[1] ?? /\/model\/([^/]+)\//.exec(path)?.[1];
  return codecFor(egress)!.decodeRequest(body, {
    ...(pathModel !== undefined && { pathModel: decodeURIComponent(pathModel) }),
    pathStream: /stream/i.test(path),
  });
}

describe.each(REQUESTS.map((r) => ({ ...r, name: `${r.protocol}/requests/${r.file}` })))('$name', (request) => {
  it.each(PROTOCOL_IDS)('to a %s lane: carried, or refused naming the field', async (egress) => {
    h.upstream.enqueue(request.stream ? streamedTextAnswer(egress) : textAnswer(egress));
    const res = await fetch(h.url + clientPath(request.protocol, laneModel(egress), request.stream), {
      method: 'POST',
      headers: CLIENT_HEADERS,
      body: sendBytes(request, egress),
    });
    const text = await res.text();
    if (res.status === 400) {
      expect(request.protocol, `a same-protocol request was refused: ${text}`).not.toBe(egress);
      expect(h.upstream.requests, 'a refused request went upstream').toHaveLength(0);
      refusals.push(`${request.protocol} → ${egress} \`${request.file}\`: ${refusalOf(request.protocol, text)}`);
      return;
    }
    expect(res.status, text).toBe(200);
    const sent = h.upstream.requests[0]!;
    if (request.protocol === egress) {
      const named = codecFor(egress)!.bodyCarriesModel ? replaceTopLevelString(request.bytes, 'model', upstreamModelOf(egress)) : request.bytes;
      // An OpenAI stream is asked for its usage (the gateway records it); the client still gets only what it asked for.
      const expected = egress === 'openai' && request.stream ? requestStreamUsage(named).body : named;
      expect(sent.rawBody.equals(expected), 'same protocol: the request bytes, only the model replaced').toBe(true);
      return;
    }
    const source = codecFor(request.protocol)!.decodeRequest(
      withoutAbsentNulls(request.json, request.protocol),
      request.model === undefined ? {} : { pathModel: request.model, pathStream: request.stream },
    );
    const expected = comparable(requestDigest(source));
    expect(expected.text, 'the source request carries text').not.toBe('');
    const arrived = comparable(requestDigest(upstreamIr(egress, sent.path, sent.json as Record<string, unknown>)));
    // A setting the source left out may be filled by the lane (Anthropic's required max_tokens).
    const filled = Object.fromEntries(Object.entries(arrived.settings as Record<string, unknown>).filter(([k]) => k in (expected.settings as object)));
    expect({ ...arrived, settings: filled }).toEqual(expected);
  });
});

/** The field a 400 names, and why, from the error body of the client's protocol. */
function refusalOf(protocol: ProtocolId, body: string): string {
  const json = JSON.parse(body) as Record<string, any>;
  const param: unknown = json.error?.param ?? json.error?.details?.[0]?.fieldViolations?.[0]?.field;
  const message: string = json.error?.message ?? json.message ?? body;
  expect(typeof param === 'string' || /^[\w.[\]]+: /.test(message), `${protocol}: the 400 names no field: ${body}`).toBe(true);
  return message.replace(/\s+/g, ' ');
}

describe.each(ANSWERS.map((a) => ({ ...a, name: `${a.protocol}/${a.file}` })))('$name as the upstream answer', (answer) => {
  it.each(PROTOCOL_IDS)('to a %s client', async (client) => {
    h.upstream.enqueue(upstreamReply(answer));
    const body = JSON.stringify(minimalRequest(client, laneModel(answer.protocol), answer.stream));
    const res = await fetch(h.url + clientPath(client, laneModel(answer.protocol), answer.stream), { method: 'POST', headers: CLIENT_HEADERS, body });
    const bytes = Buffer.from(await res.arrayBuffer());
    if (res.status === 502 && client !== answer.protocol) {
      // An answer the client protocol cannot hold: the gateway says which part, and why.
      refusals.push(`${answer.protocol} answer → ${client} client \`${answer.file}\`: ${refusalOf(client, bytes.toString('utf8'))}`);
      return;
    }
    expect(res.status, bytes.toString('utf8')).toBe(answer.status);
    if (client === answer.protocol) {
      expect(bytes.toString('utf8'), 'same protocol: the upstream bytes').toBe(answer.bytes.toString('utf8'));
      return;
    }
    if (answer.status !== 200) {
      const envelope = codecFor(client)!.encodeError({ kind: 'invalid_request', status: answer.status, message: 'x', param: null, code: null } as never);
      expect(Object.keys(JSON.parse(bytes.toString('utf8'))).sort(), "the error in the client protocol's envelope").toEqual(
        Object.keys(JSON.parse(envelope.body)).sort(),
      );
      return;
    }
    const expected = comparable(upstreamContent(answer));
    const received = clientContent(client, answer.stream, bytes);
    if (typeof received === 'string') {
      // The stream had begun: it ends with the client protocol's error event, naming the part.
      expect(received, 'the in-stream error names the field').toMatch(/^\w+: content\[\d+\]/);
      refusals.push(`${answer.protocol} answer → ${client} client \`${answer.file}\`: ${received.replace(/^\w+: /, '')} (in-stream error)`);
      return;
    }
    expect(withFinishClass(comparable(received), client)).toEqual(withFinishClass(expected, client));
  });
});

/**
 * Finish reasons compared as what the client protocol can tell apart (docs/protocols.md 3.16): a
 * refusal and a content filter are one ending everywhere but in the IR, Cohere says neither (COMPLETE),
 * and the stop sequence itself is not named by every protocol.
 */
function withFinishClass(digest: Record<string, unknown>, client: ProtocolId): Record<string, unknown> {
  const reason = (digest.settings as { finish: string }).finish;
  const classes: Record<string, string> = { stop_sequence: 'stop', context_exceeded: 'length', refusal: 'filtered', content_filter: 'filtered' };
  let finish = classes[reason] ?? reason;
  if (client === 'cohere' && finish === 'filtered') finish = 'stop';
  return { ...digest, settings: { finish } };
}

function upstreamReply(answer: CorpusAnswer) {
  if (!answer.stream) return { status: answer.status, headers: { ...answer.headers }, raw: answer.bytes };
  return { status: 200, headers: { ...answer.headers }, events: [answer.bytes] };
}

function upstreamContent(answer: CorpusAnswer) {
  const codec = codecFor(answer.protocol)!;
  if (!answer.stream) return responseDigest(codec.decodeResponse(JSON.parse(answer.bytes.toString('utf8'))));
  const decoder = codec.createStreamDecoder();
  const events = [...decoder.push(answer.bytes), ...decoder.end()];
  return responseDigest({ id: '', model: '', content: streamContent(events), finish: streamFinish(events), usage: null });
}

/** The client's answer as content, or the text of the error its stream ended with. */
function clientContent(client: ProtocolId, stream: boolean, bytes: Buffer): ReturnType<typeof responseDigest> | string {
  const codec = codecFor(client)!;
  if (!stream) return responseDigest(codec.decodeResponse(JSON.parse(bytes.toString('utf8'))));
  const decoder = codec.createStreamDecoder();
  const events = [...decoder.push(bytes), ...decoder.end()];
  const error = streamError(events);
  if (error !== undefined) return error;
  return responseDigest({ id: '', model: '', content: streamContent(events), finish: streamFinish(events), usage: null });
}

describe('docs/protocols.md', () => {
  it('lists exactly the refusals the corpus replay met', () => {
    const doc = readFileSync(DOC, 'utf8');
    const list = refusals
      .sort()
      .map((r) => `- ${r}`)
      .join('\n');
    const block = `${START}\n${list}\n${END}`;
    const current = doc.slice(doc.indexOf(START), doc.indexOf(END) + END.length);
    if (process.env.UPDATE_CORPUS_DOC === '1') writeFileSync(DOC, doc.replace(current, block));
    else expect(current).toBe(block);
  });
});
