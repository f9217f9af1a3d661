// Every golden IR of the other protocols encodes for Responses: a request for a Responses lane
// (schema-valid, or a 400 naming the field Responses cannot express), a response and a stream for
// a Responses client. And the IR decoded from Responses requests encodes for the other lanes.
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse, StreamEvent } from '../../../server/ir/index.ts';
import type { TranslationWarning } from '../../../server/protocols/codec.ts';
import { codecOf } from '../support/codecs.ts';
import { failureOf, laneFor } from '../support/translate.ts';
import { VALIDATORS, schemaErrors } from '../support/validators.ts';
import { LANE, SCHEMAS, codec, encodeStream, fixtures, has, json, streamProblems } from './support.ts';

/** Requests Responses cannot carry, and the field the 400 names. */
const REFUSED: Record<string, string> = {
  'openai/stop-sequence': 'stop',
  'anthropic/stop-sequence': 'stop',
};

/** Warnings a translation must give (reasoning only OpenAI can continue from is not replayed). */
const WARNED: Record<string, readonly string[]> = {
  'anthropic/thinking-with-signature': ['messages[1].content[0]', 'messages[1].content[1]'],
};

const paths = (warnings: readonly TranslationWarning[]) => warnings.map((w) => w.path);

for (const f of [...fixtures('openai'), ...fixtures('anthropic')]) {
  const key = `${f.protocol}/${f.name}`;
  describe(key, () => {
    if (has(f, 'request.ir.json')) {
      const ir = json<ChatRequest>(f, 'request.ir.json');
      const refused = REFUSED[key];
      if (refused !== undefined) {
        it(`request.ir.json is refused with a 400 naming ${refused}`, () => {
          expect(failureOf(() => codec.encodeRequest(ir, LANE))).toMatchObject({
            kind: 'invalid_request',
            status: 400,
            param: refused,
            code: 'unsupported_parameter',
          });
        });
      } else {
        it('request.ir.json encodes to a valid Responses request for the lane model', () => {
          const { body, warnings } = codec.encodeRequest(ir, LANE);
          expect(schemaErrors(SCHEMAS.request, body)).toEqual([]);
          expect(body.model).toBe(LANE.model);
          expect(paths(warnings)).toEqual(expect.arrayContaining([...(WARNED[key] ?? [])]));
          expect(warnings.every((w) => w.kind === 'dropped' || w.kind === 'reshaped')).toBe(true);
        });
      }
    }
    if (has(f, 'response.ir.json')) {
      it('response.ir.json encodes to a valid Responses response', () => {
        const { body } = codec.encodeResponse(json<ChatResponse>(f, 'response.ir.json'), { streamUsage: false });
        expect(schemaErrors(SCHEMAS.response, body)).toEqual([]);
      });
    }
    if (has(f, 'stream.ir.json')) {
      it('stream.ir.json encodes to a valid Responses stream', () => {
        expect(streamProblems(encodeStream(json<StreamEvent[]>(f, 'stream.ir.json')))).toEqual([]);
      });
    }
  });
}

describe('IR decoded from Responses requests, encoded for the other lanes', () => {
  for (const f of fixtures('responses').filter((x) => has(x, 'request.ir.json'))) {
    for (const target of ['openai', 'anthropic'] as const) {
      it(`${f.name} -> ${target}`, () => {
        const { body } = codecOf(target).encodeRequest(json<ChatRequest>(f, 'request.ir.json'), laneFor(target));
        expect(schemaErrors(VALIDATORS[target].request, body)).toEqual([]);
      });
    }
  }

  it('a Responses function tool without `strict` arrives strict in Chat (Responses applies strict mode by default)', () => {
    const request = codec.decodeRequest(
      { model: 'm', input: 'hi', tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {}, additionalProperties: false } }] },
      {},
    );
    const { body } = codecOf('openai').encodeRequest(request, laneFor('openai'));
    expect((body.tools as { function: { strict?: boolean } }[])[0]?.function.strict).toBe(true);
  });
});
