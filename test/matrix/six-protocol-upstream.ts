// A mock provider that speaks all six protocols: it recognises the protocol by the path, checks
// the gateway's request against that protocol's schema, and answers in that protocol's wire form,
// stream or not. The answers are encoded by the codecs' own encoders from one fixed IR reply; the
// codecs' SDK tests are what establish that those encoders write what the official SDKs read.
import type { ValidateFunction } from 'ajv';
import { gatewayError, type ChatResponse, type ProtocolId } from '../../server/ir/index.ts';
import { startSixProtocolServer, wantsStream, writeAnswer } from '../support/six-protocol-server.ts';
import { VALIDATORS } from './validators.ts';

export interface SixProtocolUpstream {
  readonly url: string;
  /** Requests whose body broke the protocol's request schema (should stay empty). */
  readonly schemaViolations: string[];
  close(): Promise<void>;
}

export const REPLY_TEXT = (protocol: ProtocolId) => `pong from ${protocol}`;

function reply(protocol: ProtocolId): ChatResponse {
  return {
    id: `resp_${protocol}`,
    model: `upstream-${protocol}`,
    content: [{ type: 'text', text: REPLY_TEXT(protocol) }],
    finish: { reason: 'stop', raw: null },
    usage: { inputTokens: 5, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
  };
}

export interface SixProtocolUpstreamOptions {
  /**
   * Answer a body that is not JSON or breaks the protocol's schema with a 400 in that protocol's
   * error shape, as a real provider does (the fuzz suite); default: record it and answer anyway.
   */
  readonly refuseInvalid?: boolean;
}

function parseJson(bytes: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export async function startSixProtocolUpstream(options: SixProtocolUpstreamOptions = {}): Promise<SixProtocolUpstream> {
  const schemaViolations: string[] = [];
  const server = await startSixProtocolServer((call, res) => {
    const { protocol, codec, path } = call;
    const body = parseJson(call.body);
    const validate: ValidateFunction = VALIDATORS[protocol].request;
    if (body === undefined || !validate(body)) {
      schemaViolations.push(`${protocol} ${path}: ${body === undefined ? 'not JSON' : JSON.stringify(validate.errors)}`);
      if (options.refuseInvalid === true || body === undefined) {
        const refusal = codec.encodeError(gatewayError('invalid_request', 'the request does not match this API', { code: 'invalid_request' }));
        res.writeHead(refusal.status, refusal.headers).end(refusal.body);
        return;
      }
    }
    writeAnswer(res, call, reply(protocol), wantsStream(call, body));
  });
  return { url: server.url, schemaViolations, close: () => server.close() };
}
