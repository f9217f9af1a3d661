// Ways a network can cut the same bytes: the decoders must not care.

export function splitAt(bytes: Uint8Array, offset: number): Uint8Array[] {
  return [bytes.subarray(0, offset), bytes.subarray(offset)];
}

export function byteByByte(bytes: Uint8Array): Uint8Array[] {
  return Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
}

/** The same stream with every LF line end written as `ending` (SSE allows CRLF, LF and CR). */
export function withLineEnds(bytes: Uint8Array, ending: '\r\n' | '\r'): Uint8Array {
  return Buffer.from(Buffer.from(bytes).toString('latin1').replaceAll('\n', ending), 'latin1');
}
