import { anthropicErrorBody } from './anthropic-replies.ts';
import type { EchoProtocol } from './echo-protocol.ts';
import type { HttpReply } from './http-reply.ts';
import { openaiErrorBody } from './openai-replies.ts';
import { randomId } from './random-id.ts';

export type DemoErrorKind = 'invalid_request' | 'not_found' | 'request_too_large';

const STATUS: Record<DemoErrorKind, number> = { invalid_request: 400, not_found: 404, request_too_large: 413 };
const ANTHROPIC_TYPE: Record<DemoErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  not_found: 'not_found_error',
  request_too_large: 'request_too_large',
};

/** An HTTP error in the protocol's own body shape, so clients' SDKs raise their usual errors. */
export function errorReply(protocol: EchoProtocol, kind: DemoErrorKind, message: string): HttpReply {
  const status = STATUS[kind];
  if (protocol === 'anthropic') {
    const requestId = randomId('req_');
    return { status, headers: { 'request-id': requestId }, json: anthropicErrorBody(ANTHROPIC_TYPE[kind], message, requestId) };
  }
  // OpenAI reports every client-side error as invalid_request_error.
  return { status, headers: { 'x-request-id': randomId('req_') }, json: openaiErrorBody(message, 'invalid_request_error', null) };
}
