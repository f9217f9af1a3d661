// Every golden IR, whatever protocol it came from, must encode to a schema-valid body in every
// protocol: a request for any lane, a response and a stream for any client.
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse, StreamEvent } from '../../server/ir/index.ts';
import { codecOf, encodeStream } from './support/codecs.ts';
import { FIXTURE_PROTOCOLS, hasFile, readJson, scenarios } from './support/fixtures.ts';
import { streamProblems } from './support/stream-validity.ts';
import { laneFor } from './support/translate.ts';
import { VALIDATORS, schemaErrors } from './support/validators.ts';

for (const scenario of scenarios()) {
  describe(`${scenario.protocol}/${scenario.name}`, () => {
    for (const target of FIXTURE_PROTOCOLS) {
      if (hasFile(scenario, 'request.ir.json')) {
        it(`request.ir.json encodes to a valid ${target} request for the lane's model`, () => {
          const { body } = codecOf(target).encodeRequest(readJson<ChatRequest>(scenario, 'request.ir.json'), laneFor(target));
          expect(schemaErrors(VALIDATORS[target].request, body)).toEqual([]);
          expect(body.model).toBe(laneFor(target).model);
        });
      }
      if (hasFile(scenario, 'response.ir.json')) {
        it(`response.ir.json encodes to a valid ${target} response`, () => {
          const { body } = codecOf(target).encodeResponse(readJson<ChatResponse>(scenario, 'response.ir.json'), { streamUsage: false });
          expect(schemaErrors(VALIDATORS[target].response, body)).toEqual([]);
        });
      }
      if (hasFile(scenario, 'stream.ir.json')) {
        it(`stream.ir.json encodes to a valid ${target} stream`, () => {
          expect(streamProblems(target, encodeStream(target, readJson<StreamEvent[]>(scenario, 'stream.ir.json')))).toEqual([]);
        });
      }
    }
  });
}
