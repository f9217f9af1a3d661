import { anthropicEchoReply } from './anthropic-echo.ts';
import type { EchoProtocol } from './echo-protocol.ts';
import { errorReply } from './error-reply.ts';
import type { HttpReply } from './http-reply.ts';
import { openaiEchoReply } from './openai-echo.ts';

/** The echo answer to a raw request body; bodies that are not JSON get the protocol's 400. */
export function echoReply(protocol: EchoProtocol, rawBody: Buffer): HttpReply {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    return errorReply(protocol, 'invalid_request', 'We could not parse the JSON body of your request.');
  }
  return protocol === 'openai' ? openaiEchoReply(body) : anthropicEchoReply(body);
}
