import type { IncomingHttpHeaders } from 'node:http';

/** The two wire protocols the demo provider (and the mock's default reply) speak. */
export type EchoProtocol = 'openai' | 'anthropic';

/** The protocol a path belongs to, by suffix so `/v1/...` and `/openai/v1/...` bases both work. */
export function echoProtocolForPath(path: string): EchoProtocol | undefined {
  const pathname = path.split('?', 1)[0] ?? '';
  if (pathname.endsWith('/chat/completions')) return 'openai';
  if (pathname.endsWith('/v1/messages')) return 'anthropic';
  return undefined;
}

/** Which protocol's error body an unknown route gets: Anthropic clients announce themselves. */
export function errorProtocolFor(path: string, headers: IncomingHttpHeaders): EchoProtocol {
  const anthropicLike = headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined || path.includes('/messages');
  return anthropicLike ? 'anthropic' : 'openai';
}
