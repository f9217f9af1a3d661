import { randomBytes } from 'node:crypto';

/** A provider-looking id such as `chatcmpl-3f9a…` or `msg_3f9a…`: the prefix plus 24 hex chars. */
export function randomId(prefix: string): string {
  return prefix + randomBytes(12).toString('hex');
}
