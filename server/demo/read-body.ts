import type { IncomingMessage } from 'node:http';

export interface ReadBody {
  body: Buffer;
  /** The body went past the limit; the rest was drained and dropped so the connection stays usable. */
  tooLarge: boolean;
}

/** Reads a whole request body; rejects if the client goes away mid-body. */
export async function readBody(req: IncomingMessage, limitBytes = Number.POSITIVE_INFINITY): Promise<ReadBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size <= limitBytes) chunks.push(buffer);
  }
  return { body: Buffer.concat(chunks), tooLarge: size > limitBytes };
}
