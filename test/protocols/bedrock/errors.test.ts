// Bedrock's HTTP error envelope: the type travels in `x-amzn-errortype`, the body is {message}.
import { describe, expect, it } from 'vitest';
import { gatewayError, type ErrorKind } from '../../../server/ir/index.ts';
import { bedrockCodec } from '../../../server/protocols/bedrock/index.ts';
import { schemaErrors } from '../support/validators.ts';
import { BEDROCK } from './support/validators.ts';

const upstream = (status: number, type: string | undefined, body: unknown, retryAfterSeconds?: number) => ({
  status,
  bodyText: typeof body === 'string' ? body : JSON.stringify(body),
  headers: type === undefined ? {} : { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
  retryAfterSeconds,
});

describe('Bedrock decodeError', () => {
  it.each([
    ['ValidationException', 400, 'invalid_request'],
    ['AccessDeniedException', 403, 'permission'],
    ['ResourceNotFoundException', 404, 'not_found'],
    ['ThrottlingException', 429, 'rate_limit'],
    ['ServiceQuotaExceededException', 400, 'rate_limit'],
    ['ModelTimeoutException', 408, 'timeout'],
    ['InternalServerException', 500, 'server'],
    ['ServiceUnavailableException', 503, 'unavailable'],
    ['ModelNotReadyException', 429, 'overloaded'],
    ['ModelErrorException', 424, 'server'],
    ['UnrecognizedClientException', 403, 'authentication'],
  ])('%s (%i) is %s, keeping the status and the type as its code', (type, status, kind) => {
    const body = { message: `${type} happened` };
    expect(schemaErrors(BEDROCK.error, body)).toEqual([]);
    expect(bedrockCodec.decodeError(upstream(status, type, body))).toEqual({ kind, status, message: `${type} happened`, code: type });
  });

  it('reads Message, a bare type, a type in the body, and keeps Retry-After', () => {
    expect(
      bedrockCodec.decodeError({
        status: 429,
        bodyText: '{"Message":"Rate exceeded"}',
        headers: { 'x-amzn-errortype': 'ThrottlingException' },
        retryAfterSeconds: 3,
      }),
    ).toEqual({ kind: 'rate_limit', status: 429, message: 'Rate exceeded', code: 'ThrottlingException', retryAfterSeconds: 3 });
    expect(
      bedrockCodec.decodeError({
        status: 400,
        bodyText: '{"__type":"com.amazonaws.bedrockruntime#ValidationException","message":"bad"}',
        headers: {},
        retryAfterSeconds: undefined,
      }),
    ).toMatchObject({ kind: 'invalid_request', code: 'ValidationException' });
    expect(
      bedrockCodec.decodeError({
        status: 400,
        bodyText: '{"message":"bad"}',
        headers: { 'x-amzn-errortype': ['ValidationException:http://x/', 'y'] },
        retryAfterSeconds: undefined,
      }),
    ).toMatchObject({ code: 'ValidationException' });
  });

  it('falls back to the status for unknown types and bodies that are not JSON', () => {
    expect(bedrockCodec.decodeError(upstream(409, 'BrandNewException', { message: 'new' }))).toEqual({
      kind: 'invalid_request',
      status: 409,
      message: 'new',
      code: 'BrandNewException',
    });
    expect(bedrockCodec.decodeError(upstream(502, undefined, '<html>Bad Gateway</html>'))).toEqual({
      kind: 'server',
      status: 502,
      message: 'upstream answered 502: <html>Bad Gateway</html>',
      code: null,
    });
  });
});

describe('Bedrock encodeError', () => {
  const KINDS: [ErrorKind, string][] = [
    ['invalid_request', 'ValidationException'],
    ['request_too_large', 'ValidationException'],
    ['authentication', 'UnrecognizedClientException'],
    ['permission', 'AccessDeniedException'],
    ['not_found', 'ResourceNotFoundException'],
    ['rate_limit', 'ThrottlingException'],
    ['billing', 'ServiceQuotaExceededException'],
    ['server', 'InternalServerException'],
    ['unavailable', 'ServiceUnavailableException'],
    ['overloaded', 'ServiceUnavailableException'],
    ['timeout', 'ModelTimeoutException'],
  ];

  it.each(KINDS)('%s is sent as %s with the status kept and a valid body', (kind, type) => {
    const envelope = bedrockCodec.encodeError(gatewayError(kind, 'nope'));
    expect(envelope.headers['x-amzn-errortype']).toBe(`${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`);
    expect(envelope.headers['content-type']).toBe('application/json');
    expect(envelope.status).toBe(gatewayError(kind, 'x').status);
    const body = JSON.parse(envelope.body) as unknown;
    expect(body).toEqual({ message: 'nope' });
    expect(schemaErrors(BEDROCK.error, body)).toEqual([]);
  });

  it('keeps a relayed status and Retry-After, and decodes back to the same kind', () => {
    const error = gatewayError('rate_limit', 'slow down', { status: 429, retryAfterSeconds: 1.5 });
    const envelope = bedrockCodec.encodeError(error);
    expect(envelope.headers['retry-after']).toBe('2');
    expect(bedrockCodec.decodeError({ status: envelope.status, bodyText: envelope.body, headers: envelope.headers, retryAfterSeconds: 2 })).toEqual({
      kind: 'rate_limit',
      status: 429,
      message: 'slow down',
      code: 'ThrottlingException',
      retryAfterSeconds: 2,
    });
  });
});
