import type { ServerResponse } from 'node:http';

/** A complete answer to one request: a JSON body, or an SSE body written event by event. */
export type HttpReply =
  | { status: number; headers: Record<string, string>; json: unknown }
  | { status: number; headers: Record<string, string>; events: string[] };

export function writeHttpReply(res: ServerResponse, reply: HttpReply): void {
  if ('json' in reply) {
    const body = JSON.stringify(reply.json);
    res.writeHead(reply.status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...reply.headers,
    });
    res.end(body);
    return;
  }
  res.writeHead(reply.status, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...reply.headers,
  });
  for (const event of reply.events) res.write(event);
  res.end();
}
