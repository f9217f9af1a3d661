/**
 * Where SSE events end: after their blank line, LF LF or CR LF CR LF (the two framings upstreams
 * use). One definition for every layer that cuts a relayed stream at event boundaries (the
 * pre-commit probe, the usage strip, the client's credential mask, the stream tail). Native
 * searches only; works on bytes and on a chunk's latin-1 string alike.
 */

/** Where the event starting at `from` ends (after its blank line), or -1 when it is not complete yet. */
export function sseEventEnd(chunk: Buffer | string, from: number): number {
  if (from >= chunk.length) return -1;
  const lf = chunk.indexOf('\n\n', from);
  const crlf = chunk.indexOf('\r\n\r\n', from);
  if (lf === -1) return crlf === -1 ? -1 : crlf + 4;
  return crlf === -1 || lf + 2 < crlf + 4 ? lf + 2 : crlf + 4;
}

/** Where the last complete event in `chunk` ends: its length for the usual read of whole events, 0 when none is complete. */
export function lastSseEventEnd(chunk: Buffer | string): number {
  const lf = chunk.lastIndexOf('\n\n');
  if (lf !== -1 && lf + 2 === chunk.length) return chunk.length; // the usual read, whole events: no second search
  const crlf = chunk.lastIndexOf('\r\n\r\n');
  return Math.max(lf === -1 ? 0 : lf + 2, crlf === -1 ? 0 : crlf + 4);
}
