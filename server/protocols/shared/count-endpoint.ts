import type { ChatRequest } from '../../ir/index.ts';
import type { LaneContext } from '../codec.ts';

/**
 * A provider's own input-token count endpoint, for a request already in IR: where to post, what to
 * post (the lane codec's request body, narrowed to what the endpoint takes) and where the count is
 * in the answer. A protocol with one declares it in its definition (`countEndpoint`).
 */
export interface CountEndpoint {
  readonly path: string;
  readonly body: Record<string, unknown>;
  /** The count in the endpoint's answer, or undefined when the answer has none. */
  count(answer: Record<string, unknown>): number | undefined;
}

export type CountEndpointFor = (request: ChatRequest, lane: LaneContext) => CountEndpoint;

export const numberAt = (answer: Record<string, unknown>, key: string): number | undefined => (typeof answer[key] === 'number' ? answer[key] : undefined);

/** The members of an encoded body that a count endpoint takes. */
export function pick(body: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (body[key] !== undefined) out[key] = body[key];
  return out;
}
