// What the Bedrock Converse schemas (spec/protocols/bedrock/) cannot say as TypeScript. The
// request, response, stream event, usage and error types are generated from those schemas
// (generated/protocols/bedrock/) and the codec imports them from there; only this stays by hand.
import type { BedrockErrorBody as SchemaErrorBody } from '../../../generated/protocols/bedrock/error.ts';
import type { BedrockStreamEvent } from '../../../generated/protocols/bedrock/stream-event.ts';

/**
 * An error body as the codec reads it from an upstream: the schema requires `message` or
 * `Message` (some AWS front ends capitalise it), but a body that has neither still has to become
 * an error, so every member may be missing.
 */
export type BedrockErrorBody = Partial<SchemaErrorBody>;

/**
 * The payload of one ConverseStream frame, by its `:event-type`. The schema describes an event as
 * the union member `{<event type>: payload}`; on the wire the type is a frame header and the
 * payload stands alone.
 */
export type BedrockEventPayload<K extends keyof BedrockStreamEvent> = NonNullable<BedrockStreamEvent[K]>;
