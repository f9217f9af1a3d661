import { GatewayFailure, gatewayError } from '../../ir/index.ts';

/** The boundary of a `multipart/form-data` body (RFC 7578), from its content type; 400 otherwise. */
export function multipartBoundary(contentType: string | undefined): string {
  const type = contentType ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) throw notMultipart(`content-type must be multipart/form-data with a boundary (got "${type.slice(0, 80)}")`);
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(type);
  const boundary = match?.[1] ?? match?.[2];
  if (boundary === undefined) throw notMultipart('content-type multipart/form-data has no boundary');
  return boundary;
}

function notMultipart(message: string): GatewayFailure {
  return new GatewayFailure(gatewayError('invalid_request', message, { code: 'invalid_multipart' }));
}
