// Every golden IR of the other protocols must encode to a valid Bedrock body (request, response,
// stream), or be refused with a 400 naming the field Bedrock cannot take; and every Bedrock golden
// IR must encode validly for the other protocols' clients and lanes.
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse, StreamEvent } from '../../../server/ir/index.ts';
import { bedrockCodec } from '../../../server/protocols/bedrock/index.ts';
import { codecOf, encodeStream as encodeSseStream } from '../support/codecs.ts';
import { FIXTURE_PROTOCOLS, hasFile, readJson, scenarios as otherScenarios } from '../support/fixtures.ts';
import { streamProblems as sseStreamProblems } from '../support/stream-validity.ts';
import { failureOf, laneFor } from '../support/translate.ts';
import { VALIDATORS, schemaErrors } from '../support/validators.ts';
import { hasFile as hasBedrockFile, readJson as readBedrockJson, scenarios } from './support/fixtures.ts';
import { encodeStream, streamProblems } from './support/stream.ts';
import { BEDROCK } from './support/validators.ts';

const LANE = { model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', defaultMaxTokens: 2048 };

/** What Bedrock cannot express from the other protocols' fixtures: image URLs (never fetched). */
const REFUSED: Readonly<Record<string, string>> = {
  'openai/images': 'messages[0].content[1].source.url',
  'anthropic/images': 'messages[0].content[0].source.url',
};

for (const scenario of otherScenarios()) {
  const key = `${scenario.protocol}/${scenario.name}`;
  describe(`${key} into Bedrock`, () => {
    if (hasFile(scenario, 'request.ir.json')) {
      const request = readJson<ChatRequest>(scenario, 'request.ir.json');
      const refused = REFUSED[key];
      if (refused === undefined) {
        it('request.ir.json encodes to a valid Bedrock request', () => {
          expect(schemaErrors(BEDROCK.request, bedrockCodec.encodeRequest(request, LANE).body)).toEqual([]);
        });
      } else {
        it(`request.ir.json is refused with a 400 naming ${refused}`, () => {
          expect(failureOf(() => bedrockCodec.encodeRequest(request, LANE))).toMatchObject({
            kind: 'invalid_request',
            status: 400,
            param: refused,
            code: 'unsupported_parameter',
          });
        });
      }
    }
    if (hasFile(scenario, 'response.ir.json')) {
      it('response.ir.json encodes to a valid Converse response', () => {
        expect(
          schemaErrors(BEDROCK.response, bedrockCodec.encodeResponse(readJson<ChatResponse>(scenario, 'response.ir.json'), { streamUsage: false }).body),
        ).toEqual([]);
      });
    }
    if (hasFile(scenario, 'stream.ir.json')) {
      it('stream.ir.json encodes to a valid ConverseStream body', () => {
        expect(streamProblems(encodeStream(readJson<StreamEvent[]>(scenario, 'stream.ir.json')))).toEqual([]);
      });
    }
  });
}

it('every refusal listed above names a fixture that exists', () => {
  const keys = otherScenarios()
    .filter((s) => hasFile(s, 'request.ir.json'))
    .map((s) => `${s.protocol}/${s.name}`);
  expect(keys).toEqual(expect.arrayContaining(Object.keys(REFUSED)));
});

for (const scenario of scenarios()) {
  describe(`bedrock/${scenario.name} into the other protocols`, () => {
    for (const target of FIXTURE_PROTOCOLS) {
      if (hasBedrockFile(scenario, 'request.ir.json')) {
        it(`request.ir.json encodes to a valid ${target} request`, () => {
          const { body } = codecOf(target).encodeRequest(readBedrockJson<ChatRequest>(scenario, 'request.ir.json'), laneFor(target));
          expect(schemaErrors(VALIDATORS[target].request, body)).toEqual([]);
        });
      }
      if (hasBedrockFile(scenario, 'response.ir.json')) {
        it(`response.ir.json encodes to a valid ${target} response`, () => {
          const { body } = codecOf(target).encodeResponse(readBedrockJson<ChatResponse>(scenario, 'response.ir.json'), { streamUsage: false });
          expect(schemaErrors(VALIDATORS[target].response, body)).toEqual([]);
        });
      }
      if (hasBedrockFile(scenario, 'stream.ir.json')) {
        it(`stream.ir.json encodes to a valid ${target} stream`, () => {
          expect(sseStreamProblems(target, encodeSseStream(target, readBedrockJson<StreamEvent[]>(scenario, 'stream.ir.json')))).toEqual([]);
        });
      }
    }
  });
}
