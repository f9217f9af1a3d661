/** Why a body could not be taken further. */
export type Overrun = 'too_large' | 'no_room';

/** Memory accounting for a body the gateway keeps (gateway/body-memory.ts's BodyHold). */
export interface MemoryHold {
  /** Holds up to `total` bytes for this body; false: they do not fit. */
  growTo(total: number): boolean;
}

/**
 * The rule every bounded read applies, whether it buffers the body or streams it through: at most
 * `limit` bytes and, for a body the gateway keeps, the memory held for it grown as it arrives, so
 * a body that does not fit is refused instead of read. Plain functions: nothing allocated per chunk.
 */
export function overrunAt(size: number, limit: number, hold: MemoryHold | undefined): Overrun | undefined {
  if (size > limit) return 'too_large';
  if (hold !== undefined && !hold.growTo(size)) return 'no_room';
  return undefined;
}

/** Before the first byte: a declared length (content-length) past the bounds already. */
export function declaredOverrun(length: string | undefined, limit: number, hold: MemoryHold | undefined): Overrun | undefined {
  const declared = Number(length);
  return Number.isFinite(declared) ? overrunAt(declared, limit, hold) : undefined;
}
