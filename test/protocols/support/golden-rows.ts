// What the one golden suite (../golden.test.ts) needs to know of each protocol: the scenarios it
// must cover, the files that come in pairs, the route a request arrived on, how a request, an
// answer and a stream survive an encode -> decode round trip through its wire, and the checks
// only its fixtures have. One row a protocol; every row is read the same way.
import { expect, it } from 'vitest';
import type { ChatRequest, ChatResponse, StreamEvent } from '../../../server/ir/index.ts';
import type { LaneContext, RequestOrigin } from '../../../server/protocols/codec.ts';
import type { ProtocolId } from '../../../server/protocols/registry.ts';
import * as bedrockFixtures from '../bedrock/support/fixtures.ts';
import { asStreamEvent, bytesToFrames, framesToBytes, type FixtureFrame } from '../bedrock/support/frames.ts';
import * as bedrockStream from '../bedrock/support/stream.ts';
import * as bedrockSurvivable from '../bedrock/support/survivable.ts';
import { BEDROCK } from '../bedrock/support/validators.ts';
import * as cohere from '../cohere/support.ts';
import * as gemini from '../gemini/support.ts';
import * as responses from '../responses/support.ts';
import { encodeStream } from './codecs.ts';
import { hasFile, readBytes, readJson, type ScenarioDir } from './fixtures.ts';
import { streamProblems } from './stream-validity.ts';
import { survivingResponse, survivingStream } from './survivable.ts';
import { failureOf } from './translate.ts';
import { VALIDATORS, schemaErrors, type ProtocolValidators } from './validators.ts';

/** How a request IR comes back from its own protocol's wire (absent: the row checks wire -> IR only). */
export interface RequestRoundTrip {
  lane(ir: ChatRequest): LaneContext;
  /** The route the encoded body is decoded as having arrived on. */
  backOrigin(ir: ChatRequest, scenario: ScenarioDir): RequestOrigin;
  /** What must come back, and the projection of what came back that must equal it. */
  expected(ir: ChatRequest, lane: LaneContext): unknown;
  actual?(decoded: ChatRequest): unknown;
  /** Checks of the encoded body beyond its schema. */
  body?(body: Record<string, unknown>): void;
}

/** One stream framing a scenario may hold. */
export interface StreamForm {
  readonly file: string;
  /** Grammar problems of the fixture bytes; a scenario may be expected to break the grammar (a truncated stream). */
  fixtureProblems(bytes: Buffer): string[];
  expectedFixtureProblems?(scenario: ScenarioDir): string[];
  encode(events: readonly StreamEvent[]): { readonly wire: string | Buffer; readonly warnings?: readonly unknown[] };
  encodedProblems(wire: string | Buffer): string[];
  surviving(events: readonly StreamEvent[]): unknown;
}

export interface GoldenRow {
  /** Scenarios the protocol must cover; a deleted folder must fail the suite, not shrink it. */
  readonly required: readonly string[];
  /** Files present iff their partner is (`[wire, ir]`); `implies`: the second present whenever the first is. */
  readonly pairs: readonly (readonly [string, string])[];
  readonly implies?: readonly (readonly [string, string])[];
  readonly schemas: ProtocolValidators;
  /** `REGENERATE=1` rewrites this protocol's *.ir.json from the code, for a human to review. */
  readonly regenerates: boolean;
  origin(scenario: ScenarioDir): RequestOrigin;
  readonly requestRoundTrip?: RequestRoundTrip;
  survivingResponse(response: ChatResponse): unknown;
  readonly streams: readonly StreamForm[];
  /** Checks only this protocol's fixtures have, registered inside the scenario's describe. */
  extra?(scenario: ScenarioDir): void;
}

const BASE_PAIRS = [
  ['request.wire.json', 'request.ir.json'],
  ['response.wire.json', 'response.ir.json'],
  ['stream.wire.txt', 'stream.ir.json'],
] as const;
// Every protocol covers these; a row names only the scenarios its own wire has on top of them.
const COMMON_SCENARIOS = ['text-basic', 'system-and-multi-turn', 'tool-call-parallel', 'images', 'stop-sequence', 'usage-cached'];
const STREAM_FAILURES = ['stream-error', 'stream-truncated'];
const scenarios = (...own: string[]): string[] => [...COMMON_SCENARIOS, ...own, ...STREAM_FAILURES];
const BODY_ORIGIN = (): RequestOrigin => ({});
const same = <T>(value: T): T => value;
const withoutUnmapped = (ir: ChatRequest) => ({ ...ir, unmapped: [] });

/** OpenAI and Anthropic: the shared SSE grammar check and projections in this folder. */
function sharedSse(protocol: 'openai' | 'anthropic'): StreamForm {
  return {
    file: 'stream.wire.txt',
    fixtureProblems: (bytes) => streamProblems(protocol, bytes.toString('utf8')),
    encode: (events) => ({ wire: encodeStream(protocol, events) }),
    encodedProblems: (wire) => streamProblems(protocol, wire.toString()),
    surviving: (events) => survivingStream(protocol, events),
  };
}

function geminiStream(file: string, framing: 'sse' | 'array'): StreamForm {
  return {
    file,
    fixtureProblems: (bytes) => gemini.streamProblems(bytes.toString('utf8'), framing),
    encode: (events) => {
      const encoder = gemini.codec.createStreamEncoder({ streamUsage: true, jsonArrayStream: framing === 'array' });
      return { wire: events.map((e) => encoder.encode(e)).join(''), warnings: encoder.warnings };
    },
    encodedProblems: (wire) => gemini.streamProblems(wire.toString(), framing),
    surviving: gemini.survivingStream,
  };
}

/** An in-stream Cohere error keeps its kind and message on the wire (message-end delta.error), not its status or code. */
function cohereSurviving(event: StreamEvent): unknown {
  if (event.type !== 'error') return event;
  return { type: 'error', error: { kind: event.error.kind, message: event.error.message } };
}

const CLAUDE_ON_BEDROCK: LaneContext = { model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', defaultMaxTokens: 2048 };
const GEMINI_LANE: LaneContext = { model: 'gemini-2.5-flash', defaultMaxTokens: 2048 };

export const GOLDEN: Readonly<Record<ProtocolId, GoldenRow>> = {
  openai: {
    required: scenarios('refusal', 'text-unicode'),
    pairs: BASE_PAIRS,
    schemas: VALIDATORS.openai,
    regenerates: true,
    origin: BODY_ORIGIN,
    survivingResponse: (response) => survivingResponse('openai', response),
    streams: [sharedSse('openai')],
  },
  responses: {
    required: scenarios('reasoning-encrypted', 'refusal', 'content-filter', 'max-output-tokens'),
    pairs: [...BASE_PAIRS, ['encode-request.ir.json', 'encode-request.error.json']],
    schemas: responses.SCHEMAS,
    regenerates: false,
    origin: BODY_ORIGIN,
    requestRoundTrip: {
      lane: () => responses.LANE,
      backOrigin: BODY_ORIGIN,
      expected: (ir, lane) => ({ ...responses.survivingRequest(ir), model: lane.model }),
      actual: responses.survivingRequest,
    },
    survivingResponse: same,
    streams: [
      {
        file: 'stream.wire.txt',
        fixtureProblems: (bytes) => responses.streamProblems(bytes.toString('utf8')),
        encode: (events) => ({ wire: responses.encodeStream(events) }),
        encodedProblems: (wire) => responses.streamProblems(wire.toString()),
        surviving: responses.survivingStream,
      },
    ],
    extra: (scenario) => {
      if (!hasFile(scenario, 'encode-request.ir.json')) return;
      it('encodeRequest(encode-request.ir.json) fails as encode-request.error.json says', () => {
        const ir = readJson<ChatRequest>(scenario, 'encode-request.ir.json');
        expect(failureOf(() => responses.codec.encodeRequest(ir, responses.LANE))).toMatchObject(readJson<object>(scenario, 'encode-request.error.json'));
      });
    },
  },
  anthropic: {
    required: scenarios('thinking-with-signature', 'refusal', 'text-unicode'),
    pairs: BASE_PAIRS,
    schemas: VALIDATORS.anthropic,
    regenerates: true,
    origin: BODY_ORIGIN,
    survivingResponse: (response) => survivingResponse('anthropic', response),
    streams: [sharedSse('anthropic')],
  },
  gemini: {
    required: scenarios('thinking-with-signature', 'content-filter', 'prompt-blocked', 'text-unicode'),
    pairs: BASE_PAIRS,
    implies: [['stream.array.txt', 'stream.ir.json']],
    schemas: gemini.SCHEMAS,
    regenerates: false,
    origin: gemini.originOf,
    requestRoundTrip: {
      // The lane serves the model the request named (its thinking settings depend on the model generation).
      lane: (ir) => ({ ...GEMINI_LANE, model: ir.model }),
      backOrigin: (_, scenario) => gemini.originOf(scenario),
      expected: withoutUnmapped,
      body: (body) => expect(body).not.toHaveProperty('model'), // the model goes in the path
    },
    survivingResponse: same,
    streams: [geminiStream('stream.wire.txt', 'sse'), geminiStream('stream.array.txt', 'array')],
    extra: (scenario) => {
      if (!hasFile(scenario, 'stream.wire.txt')) return;
      it("the SSE fixture uses Gemini's CRLF framing", () => {
        const text = readBytes(scenario, 'stream.wire.txt').toString('utf8');
        expect(text.endsWith('\r\n\r\n')).toBe(true);
        expect(text.replaceAll('\r\n', '')).not.toContain('\n');
        expect(gemini.ssePayloads(text).length).toBeGreaterThan(0);
        expect(gemini.encodeEvents(readJson<StreamEvent[]>(scenario, 'stream.ir.json'))).toMatch(/^data: .*\r\n\r\n$/s);
      });
    },
  },
  bedrock: {
    required: [...scenarios('reasoning-with-signature', 'content-filter', 'text-unicode'), 'stream-metadata-first'],
    pairs: [
      ['request.wire.json', 'request.ir.json'],
      ['response.wire.json', 'response.ir.json'],
      ['stream.wire.bin', 'stream.ir.json'],
      ['stream.frames.json', 'stream.wire.bin'],
    ],
    schemas: BEDROCK,
    // Its REGENERATE rewrites stream.wire.bin from stream.frames.json (below), never the *.ir.json files.
    regenerates: false,
    origin: bedrockFixtures.originOf,
    requestRoundTrip: {
      lane: () => CLAUDE_ON_BEDROCK,
      // Unmapped client fields are the pipeline's to report, never re-encoded; the path names model and stream.
      backOrigin: (ir) => ({ pathModel: ir.model, pathStream: ir.stream }),
      expected: withoutUnmapped,
    },
    survivingResponse: same,
    streams: [
      {
        file: 'stream.wire.bin',
        fixtureProblems: (bytes) =>
          bytesToFrames(bytes).flatMap((frame) => schemaErrors(BEDROCK.streamEvent, asStreamEvent(frame)).map((e) => `${e} in ${JSON.stringify(frame)}`)),
        encode: (events) => ({ wire: bedrockStream.encodeStream(events) }),
        encodedProblems: (wire) => bedrockStream.streamProblems(Buffer.from(wire)),
        surviving: bedrockSurvivable.survivingStream,
      },
    ],
    extra: (scenario) => {
      if (!hasFile(scenario, 'stream.frames.json')) return;
      const frames = readJson<FixtureFrame[]>(scenario, 'stream.frames.json');
      if (bedrockFixtures.REGENERATE) bedrockFixtures.writeBytes(scenario, 'stream.wire.bin', framesToBytes(frames));
      it('stream.wire.bin holds exactly the frames of stream.frames.json, CRCs included', () => {
        const bytes = readBytes(scenario, 'stream.wire.bin');
        expect(bytesToFrames(bytes)).toEqual(frames);
        expect(bytes.equals(framesToBytes(frames))).toBe(true);
      });
    },
  },
  cohere: {
    // Cohere has no refusal or content-filter signal, so no such scenario.
    required: scenarios('thinking', 'text-unicode'),
    pairs: BASE_PAIRS,
    schemas: cohere.SCHEMAS,
    regenerates: false,
    origin: BODY_ORIGIN,
    requestRoundTrip: {
      lane: () => cohere.COHERE_LANE,
      backOrigin: BODY_ORIGIN,
      // The unmapped fields are the client's, not the IR's: no encoder writes them; the model is the lane's.
      expected: (ir, lane) => ({ ...ir, model: lane.model, unmapped: [] }),
    },
    survivingResponse: same,
    streams: [
      {
        file: 'stream.wire.txt',
        fixtureProblems: (bytes) => cohere.streamProblems(bytes.toString('utf8')),
        // The truncated fixture is cut before its message-end, on purpose.
        expectedFixtureProblems: (scenario) => (scenario.name === 'stream-truncated' ? ['no message-end'] : []),
        // A truncation is the decoder's own finding, not an upstream event: re-encoded, it is a
        // Cohere error end (kind server), which decodes with the status and code of that form.
        encode: (events) => {
          const { text, warnings } = cohere.encodeStream(events);
          return { wire: text, warnings };
        },
        encodedProblems: (wire) => cohere.streamProblems(wire.toString()),
        surviving: (events) => events.map(cohereSurviving),
      },
    ],
  },
};
