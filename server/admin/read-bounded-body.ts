import type { IncomingMessage } from 'node:http';

/**
 * The whole body of a control-plane request (admin API, /auth/token), or undefined when it is
 * larger than `limit` (by its content-length or once read past it). The rest is then read and
 * dropped, not destroyed, so the answer can still be written; the caller closes the connection
 * after it.
 */
export function readBoundedBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  if (Number(request.headers['content-length'] ?? 0) > limit) {
    request.resume();
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      request.off('data', onData);
      request.off('end', onEnd);
      request.resume();
      resolve(undefined);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', reject);
  });
}
