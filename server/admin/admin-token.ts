import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * The admin token from `x-admin-token` or `Authorization: Bearer`, compared in constant time
 * (both sides hashed first so their lengths match and nothing leaks through timing).
 */
export function hasAdminToken(headers: IncomingHttpHeaders, expected: string): boolean {
  const header = headers['x-admin-token'];
  const bearer = headers.authorization?.match(/^Bearer\s+(.+)$/i)?.[1];
  const given = typeof header === 'string' ? header : bearer;
  if (given === undefined) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
