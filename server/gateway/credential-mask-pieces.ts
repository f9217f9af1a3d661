import { HOLD_FROM, NATIVE_SEARCH_FROM, type CredentialMask } from './credential-mask.ts';

/**
 * `CredentialMask.mayHold` of a whole body kept as the pieces it was read in (a large upstream
 * answer, an embeddings batch of hundreds of KB), without joining them: joining costs a copy of
 * the whole answer (and a fresh allocation of its size) on every request, for a check that almost
 * always clears it.
 *
 * Sound, not exact: true wherever `mayHold` of the joined body is true, and also for every hit
 * that `Needle.ahead` cannot clear (a whole secret, or a key's edge ending a string), without
 * looking back whether that string is a delta (what precedes a hit may lie in an earlier piece).
 * A true sends the body the careful way, joined (`maskSplitDeltas`), which changes only what
 * needs changing: the client gets the same bytes either way.
 *
 * Every needle is searched in every piece, and across each seam between pieces (a needle is at
 * most HOLD_FROM bytes); a hit too near its piece's end for `ahead` is read from a small copy of
 * the bytes it may read (`CredentialMask.reach`).
 */
export function mayHoldPieces(mask: CredentialMask, pieces: readonly Buffer[]): boolean {
  if (pieces.length === 1) return mask.mayHold(pieces[0]!);
  const body = new Pieces(pieces);
  // Small bodies: the joined copy is cheap, and mayHold's one-expression scan of it is exact.
  if (body.size < NATIVE_SEARCH_FROM) return mask.mayHold(Buffer.concat(pieces, body.size));
  const { needles, reach } = mask;
  for (let p = 0; p < pieces.length; p++) {
    const piece = pieces[p]!;
    const start = body.starts[p]!;
    const last = p === pieces.length - 1;
    for (let n = 0; n < needles.length; n++) {
      const needle = needles[n]!;
      for (let at = piece.indexOf(needle.bytes); at !== -1; at = piece.indexOf(needle.bytes, at + 1)) {
        const clear = last || at + reach <= piece.length ? !needle.ahead(piece, at) : !needle.ahead(body.slice(start + at, start + at + reach), 0);
        if (!clear) return true;
      }
    }
    if (!last && seamMayHold(mask, body, start + piece.length)) return true;
  }
  return false;
}

/** Hits that begin before `boundary` and end after it. */
function seamMayHold(mask: CredentialMask, body: Pieces, boundary: number): boolean {
  const from = Math.max(0, boundary - (HOLD_FROM - 1));
  const seam = body.slice(from, boundary + mask.reach);
  const split = boundary - from; // hits starting before this, and ending after it
  const { needles } = mask;
  for (let n = 0; n < needles.length; n++) {
    const needle = needles[n]!;
    for (let at = seam.indexOf(needle.bytes); at !== -1 && at < split; at = seam.indexOf(needle.bytes, at + 1)) {
      if (at + needle.bytes.length > split && needle.ahead(seam, at)) return true;
    }
  }
  return false;
}

/** A body's pieces with where each begins in it, for copies of a few bytes across pieces. */
class Pieces {
  readonly starts: number[];
  readonly size: number;
  private readonly pieces: readonly Buffer[];

  constructor(pieces: readonly Buffer[]) {
    this.pieces = pieces;
    this.starts = new Array<number>(pieces.length);
    let size = 0;
    for (let p = 0; p < pieces.length; p++) {
      this.starts[p] = size;
      size += pieces[p]!.length;
    }
    this.size = size;
  }

  /** The body's bytes [from, to) (to clipped at its end), copied. */
  slice(from: number, to: number): Buffer {
    const end = Math.min(to, this.size);
    const out = Buffer.allocUnsafe(Math.max(0, end - from));
    let p = this.pieceAt(from);
    let written = 0;
    while (written < out.length) {
      const piece = this.pieces[p]!;
      const offset = from + written - this.starts[p]!;
      written += piece.copy(out, written, offset, Math.min(piece.length, offset + out.length - written));
      p++;
    }
    return out;
  }

  /** The piece that holds byte `at` (the last one starting at or before it). */
  private pieceAt(at: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (this.starts[mid]! <= at) low = mid;
      else high = mid - 1;
    }
    return low;
  }
}
