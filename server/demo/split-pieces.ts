/**
 * Splits text into at most `count` consecutive non-empty pieces of near-equal length, so streamed
 * deltas look like a model's. Splits on code points so a surrogate pair is never cut in half.
 */
export function splitIntoPieces(text: string, count: number): string[] {
  const codePoints = Array.from(text);
  if (codePoints.length === 0) return [];
  const pieceCount = Math.max(1, Math.min(Math.floor(count), codePoints.length));
  const pieceLength = Math.ceil(codePoints.length / pieceCount);
  const pieces: string[] = [];
  for (let start = 0; start < codePoints.length; start += pieceLength) {
    pieces.push(codePoints.slice(start, start + pieceLength).join(''));
  }
  return pieces;
}
