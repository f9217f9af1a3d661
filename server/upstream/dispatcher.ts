import { Agent } from 'undici';
import type { Limits } from '../config/runtime-config.ts';

/**
 * One keep-alive connection pool per upstream origin (undici's Agent keys pools by origin).
 * headersTimeout bounds time to the first byte; bodyTimeout bounds silence inside a body.
 */
export function createDispatcher(limits: Limits): Agent {
  return new Agent({
    connect: { timeout: limits.connectTimeoutMs },
    headersTimeout: limits.firstByteTimeoutMs,
    bodyTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
  });
}
