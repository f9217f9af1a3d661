import type { Readable } from 'node:stream';

/** Reads an upstream error body for relaying or decoding, at most `limit` bytes (the rest is dropped). */
export async function readBounded(body: Readable, limit = 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    if (size + buf.length > limit) {
      chunks.push(buf.subarray(0, limit - size));
      body.destroy();
      break;
    }
    chunks.push(buf);
    size += buf.length;
  }
  return Buffer.concat(chunks);
}
