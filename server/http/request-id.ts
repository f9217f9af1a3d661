import { randomBytes } from 'node:crypto';

/** Every response carries `x-request-id`; log lines carry the same id. */
export function newRequestId(): string {
  return `req_${randomBytes(12).toString('hex')}`;
}
