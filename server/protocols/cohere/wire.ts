// What the Cohere v2 Chat schemas (spec/protocols/cohere/) cannot say as TypeScript. The request,
// response, usage and error types are generated from those schemas (generated/protocols/cohere/)
// and the codec imports them from there; only this stays by hand.
import type { Usage } from '../../../generated/protocols/cohere/response.ts';

/**
 * One stream event as the decoder reads it: every member any event type has, all optional. An
 * upstream's stream is not validated, so the decoder reads whatever arrived through this one
 * flattened view rather than the schema's per-type union (generated/protocols/cohere/stream-event.ts).
 */
export interface CohereStreamEvent {
  type: string;
  id?: string;
  index?: number;
  delta?: {
    message?: {
      role?: string;
      content?: { type?: string; text?: string; thinking?: string };
      tool_plan?: string;
      tool_calls?: { id?: string; type?: string; function?: { name?: string; arguments?: string } };
    };
    finish_reason?: string;
    error?: string;
    usage?: Usage;
  };
}
