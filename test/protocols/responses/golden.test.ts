// Walks test/fixtures/responses/<scenario>/ both ways: wire -> IR must equal the reviewed *.ir.json,
// and IR -> wire must be schema-valid and decode back to the same IR (minus what the Responses
// wire has no room for, see support.ts).
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse, StreamEvent } from '../../../server/ir/index.ts';
import { failureOf } from '../support/translate.ts';
import { schemaErrors } from '../support/validators.ts';
import {
  LANE,
  SCHEMAS,
  bytes,
  codec,
  decodeStream,
  encodeStream,
  fixtures,
  has,
  json,
  streamProblems,
  survivingRequest,
  survivingResponse,
  survivingStream,
} from './support.ts';

const REQUIRED = [
  'text-basic', 'system-and-multi-turn', 'tool-call-parallel', 'images', 'stop-sequence', 'usage-cached',
  'reasoning-encrypted', 'refusal', 'content-filter', 'max-output-tokens', 'stream-error', 'stream-truncated',
];

describe('fixture inventory', () => {
  it('has every required scenario', () => {
    expect(fixtures('responses').map((f) => f.name)).toEqual(expect.arrayContaining(REQUIRED));
  });
  for (const f of fixtures('responses')) {
    it(`${f.name} has both halves of every pair`, () => {
      for (const [wire, ir] of [['request.wire.json', 'request.ir.json'], ['response.wire.json', 'response.ir.json'], ['stream.wire.txt', 'stream.ir.json'], ['encode-request.ir.json', 'encode-request.error.json']] as const) {
        expect(has(f, ir), `${ir} present iff ${wire} is`).toBe(has(f, wire));
      }
    });
  }
});

for (const f of fixtures('responses')) {
  describe(`responses/${f.name}`, () => {
    if (has(f, 'request.wire.json')) {
      const wire = json<Record<string, unknown>>(f, 'request.wire.json');

      it('request.wire.json is a valid request', () => {
        expect(schemaErrors(SCHEMAS.request, wire)).toEqual([]);
      });

      it('decodeRequest gives request.ir.json', () => {
        expect(codec.decodeRequest(structuredClone(wire), {})).toEqual(json(f, 'request.ir.json'));
      });

      it('encodeRequest(request.ir.json) is valid, warns of nothing, and decodes back to the same IR', () => {
        const ir = json<ChatRequest>(f, 'request.ir.json');
        const { body, warnings } = codec.encodeRequest(ir, LANE);
        expect(schemaErrors(SCHEMAS.request, body)).toEqual([]);
        expect(warnings).toEqual([]);
        const decoded = codec.decodeRequest(JSON.parse(JSON.stringify(body)) as Record<string, unknown>, {});
        expect(survivingRequest(decoded)).toEqual({ ...survivingRequest(ir), model: LANE.model });
      });
    }

    if (has(f, 'encode-request.ir.json')) {
      it('encodeRequest(encode-request.ir.json) fails as encode-request.error.json says', () => {
        const ir = json<ChatRequest>(f, 'encode-request.ir.json');
        expect(failureOf(() => codec.encodeRequest(ir, LANE))).toMatchObject(json<object>(f, 'encode-request.error.json'));
      });
    }

    if (has(f, 'response.wire.json')) {
      const wire = json<Record<string, unknown>>(f, 'response.wire.json');

      it('response.wire.json is a valid response', () => {
        expect(schemaErrors(SCHEMAS.response, wire)).toEqual([]);
      });

      it('decodeResponse gives response.ir.json', () => {
        expect(codec.decodeResponse(structuredClone(wire))).toEqual(json(f, 'response.ir.json'));
      });

      it('encodeResponse(response.ir.json) is valid and decodes back to the same IR', () => {
        const ir = json<ChatResponse>(f, 'response.ir.json');
        const { body, warnings } = codec.encodeResponse(ir, { streamUsage: false });
        expect(schemaErrors(SCHEMAS.response, body)).toEqual([]);
        expect(warnings).toEqual([]);
        const decoded = codec.decodeResponse(JSON.parse(JSON.stringify(body)) as Record<string, unknown>);
        expect(decoded).toEqual(ir);
      });
    }

    if (has(f, 'stream.wire.txt')) {
      const wire = bytes(f, 'stream.wire.txt');

      it('stream.wire.txt follows the Responses stream grammar', () => {
        expect(streamProblems(wire.toString('utf8'))).toEqual([]);
      });

      it('the stream decoder gives stream.ir.json', () => {
        expect(decodeStream([wire])).toEqual(json(f, 'stream.ir.json'));
      });

      it('the stream encoder output for stream.ir.json is valid and decodes back to the same events', () => {
        const events = json<StreamEvent[]>(f, 'stream.ir.json');
        const text = encodeStream(events);
        expect(streamProblems(text)).toEqual([]);
        expect(survivingStream(decodeStream([Buffer.from(text)]))).toEqual(survivingStream(events));
      });
    }
  });
}

describe('response round trips that the wire cannot keep exactly', () => {
  const base: ChatResponse = {
    id: 'msg_01XkQ', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'red\ngreen\nblue\n' }],
    finish: { reason: 'stop_sequence', raw: 'stop_sequence', stopSequence: 'END' }, usage: null, created: 1763820000,
  };

  it.each([
    ['stop_sequence', 'completed', null, 'stop'],
    ['pause', 'completed', null, 'stop'],
    ['other', 'completed', null, 'stop'],
    ['context_exceeded', 'incomplete', 'max_output_tokens', 'length'],
    ['error', 'failed', null, 'error'],
  ] as const)('an IR finish %s is told as status %s (%s) and reads back as %s', (reason, status, incomplete, back) => {
    const { body } = codec.encodeResponse({ ...base, finish: { reason, raw: 'x' } }, { streamUsage: false });
    expect(schemaErrors(SCHEMAS.response, body)).toEqual([]);
    expect(body).toMatchObject({ status, incomplete_details: incomplete === null ? null : { reason: incomplete } });
    expect(codec.decodeResponse(body).finish.reason).toBe(back);
    expect(survivingResponse(codec.decodeResponse(body))).toEqual(survivingResponse({ ...base, finish: { reason, raw: 'x' } }));
  });
});
