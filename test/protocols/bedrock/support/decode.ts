import { expect } from 'vitest';
import type { ChatRequest } from '../../../../server/ir/index.ts';
import { bedrockCodec } from '../../../../server/protocols/bedrock/index.ts';
import type { RequestOrigin } from '../../../../server/protocols/codec.ts';
import { schemaErrors } from '../../support/validators.ts';
import { DEFAULT_ORIGIN } from './fixtures.ts';
import { BEDROCK } from './validators.ts';

/** Decodes a Converse body after checking it is one (the gateway validates before decoding). */
export function decodeValid(body: Record<string, unknown>, origin: RequestOrigin = DEFAULT_ORIGIN): ChatRequest {
  expect(schemaErrors(BEDROCK.request, body)).toEqual([]);
  return bedrockCodec.decodeRequest(structuredClone(body), origin);
}
