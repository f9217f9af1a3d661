import type { Usage } from '../../ir/index.ts';
import type { EncodedEnding } from './finish-reason.ts';
import { encodeUsage } from './usage.ts';
import type { ResponsesOutputItem, ResponsesResponse } from './wire.ts';

export interface ResponseParts {
  readonly id: string;
  readonly model: string;
  readonly createdAt: number;
  /** Undefined while a streamed response is still in progress. */
  readonly ending: EncodedEnding | undefined;
  readonly output: readonly ResponsesOutputItem[];
  readonly usage: Usage | null;
}

/**
 * The Response object, as the non-stream body and inside the stream's lifecycle events. OpenAI
 * also echoes the request's settings (tools, temperature, ...); the IR response does not know
 * them, and a made-up echo would mislead, so they are left out (the SDK does not need them).
 */
export function responseObject(parts: ResponseParts): ResponsesResponse {
  return {
    id: parts.id,
    object: 'response',
    created_at: parts.createdAt,
    status: parts.ending?.status ?? 'in_progress',
    error: parts.ending?.error ?? null,
    incomplete_details: parts.ending?.incompleteDetails ?? null,
    model: parts.model,
    output: [...parts.output],
    usage: parts.usage === null ? null : encodeUsage(parts.usage),
  };
}

/**
 * Ids for output items the gateway writes: OpenAI gives every item one, and the SDK refuses items
 * without. Derived from the response id and the item's position, so encoding stays pure.
 */
export function itemId(prefix: 'msg' | 'fc' | 'ctc' | 'rs', responseId: string, outputIndex: number): string {
  return `${prefix}_${responseId.replace(/[^A-Za-z0-9]/g, '')}_${outputIndex}`;
}
