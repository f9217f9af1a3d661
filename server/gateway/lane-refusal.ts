import { GatewayFailure, type GatewayError } from '../ir/index.ts';

/**
 * A lane whose protocol cannot express the request: the translation for it refused with a 400
 * (a field the target has no slot for, `n: 2` to Anthropic say) before anything went upstream.
 * In a pool of mixed protocols another lane may still serve the same request, so this is a
 * reason to skip the lane, not an answer; it becomes the answer only when no lane can.
 */
export interface LaneRefusal {
  readonly error: GatewayError;
  /** The field named in the refusal, for the attempt record (`skipped: cannot express n`). */
  readonly field: string;
}

/** The refusal a translation threw, or undefined for anything else (which is not the lane's doing). */
export function laneRefusalOf(thrown: unknown): LaneRefusal | undefined {
  if (!(thrown instanceof GatewayFailure)) return undefined;
  const { error } = thrown;
  if (error.kind !== 'invalid_request') return undefined;
  return { error, field: typeof error.param === 'string' && error.param !== '' ? error.param : 'the request' };
}
