// What an encode -> decode round trip through Bedrock's wire format must preserve; each rule names
// a place where the wire has no room for an IR value.
import type { GatewayError, StreamEvent } from '../../../../server/ir/index.ts';

export type SurvivingEvent = StreamEvent | { readonly type: 'error'; readonly error: Partial<GatewayError> };

/**
 * - Bedrock sends metadata (usage) after messageStop, so usage given before finish comes back after it.
 * - An exception frame carries a type and a message: the kind survives (status becomes the kind's
 *   usual one, the code the exception name), except where the five stream exceptions merge kinds.
 */
export function survivingStream(events: readonly StreamEvent[]): SurvivingEvent[] {
  const out: SurvivingEvent[] = events.map((e) => (e.type === 'error' ? { type: 'error', error: { kind: e.error.kind, message: e.error.message } } : e));
  const usageAt = out.findIndex((e) => e.type === 'usage');
  const finishAt = out.findIndex((e) => e.type === 'finish');
  if (usageAt !== -1 && finishAt > usageAt) {
    const [usage] = out.splice(usageAt, 1);
    out.splice(finishAt, 0, usage as SurvivingEvent);
  }
  return out;
}
