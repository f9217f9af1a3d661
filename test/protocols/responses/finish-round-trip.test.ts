// Responses tells a finish by status: finish reasons it has no status for come back as the
// nearest one, and the encoded answer stays valid.
import { describe, expect, it } from 'vitest';
import type { ChatResponse } from '../../../server/ir/index.ts';
import { schemaErrors } from '../support/validators.ts';
import { SCHEMAS, codec, survivingResponse } from './support.ts';

describe('response round trips that the wire cannot keep exactly', () => {
  const base: ChatResponse = {
    id: 'msg_01XkQ',
    model: 'claude-sonnet-4-5',
    content: [{ type: 'text', text: 'red\ngreen\nblue\n' }],
    finish: { reason: 'stop_sequence', raw: 'stop_sequence', stopSequence: 'END' },
    usage: null,
    created: 1763820000,
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
