import type { Finish, FinishReason } from '../../ir/index.ts';
import type { ResponseError } from '../../../generated/protocols/responses/response.ts';

/** What the wire says about how a response ended; Responses has no finish reason of its own. */
export interface ResponsesEnding {
  readonly status: string | undefined;
  readonly incompleteReason: string | undefined;
  readonly hasFunctionCall: boolean;
  readonly hasRefusal: boolean;
}

const INCOMPLETE: Record<string, FinishReason> = {
  max_output_tokens: 'length',
  content_filter: 'content_filter',
};

/**
 * The finish reason is derived: a completed response that calls functions stopped for tool calls,
 * one that holds a refusal part refused, an incomplete one says why. `raw` is the incomplete
 * reason when there is one, else the status.
 */
export function decodeFinishReason(ending: ResponsesEnding): Finish {
  const { status, incompleteReason } = ending;
  if (status === 'incomplete') {
    const raw = incompleteReason ?? status;
    return { reason: (incompleteReason !== undefined ? INCOMPLETE[incompleteReason] : undefined) ?? 'other', raw };
  }
  if (status === 'completed') {
    if (ending.hasFunctionCall) return { reason: 'tool_calls', raw: status };
    return { reason: ending.hasRefusal ? 'refusal' : 'stop', raw: status };
  }
  if (status === 'failed') return { reason: 'error', raw: status };
  return { reason: 'other', raw: status ?? null };
}

/** How an IR finish is told in Responses: a status, and for `incomplete` the reason. */
export interface EncodedEnding {
  readonly status: 'completed' | 'incomplete' | 'failed';
  readonly incompleteDetails: { reason: string } | null;
  readonly error: ResponseError | null;
}

/**
 * A stop sequence, a pause or an unknown reason all read as a normal completion; running out of
 * context reads as running out of output tokens (OpenAI Chat maps both to `length` as well).
 * `refusalAsFilter`: a stream has already sent the refusal as output text, so only an incomplete
 * content_filter ending can still say the answer was withheld.
 */
export function encodeFinishReason(finish: Finish, refusalAsFilter = false): EncodedEnding {
  switch (finish.reason) {
    case 'length':
    case 'context_exceeded':
      return { status: 'incomplete', incompleteDetails: { reason: 'max_output_tokens' }, error: null };
    case 'content_filter':
      return { status: 'incomplete', incompleteDetails: { reason: 'content_filter' }, error: null };
    case 'refusal':
      return refusalAsFilter
        ? { status: 'incomplete', incompleteDetails: { reason: 'content_filter' }, error: null }
        : { status: 'completed', incompleteDetails: null, error: null };
    case 'error':
      return {
        status: 'failed',
        incompleteDetails: null,
        error: { code: 'server_error', message: `the model stopped with an error${finish.raw !== null ? ` (${finish.raw})` : ''}` },
      };
    case 'stop':
    case 'stop_sequence':
    case 'tool_calls':
    case 'pause':
    case 'other':
      return { status: 'completed', incompleteDetails: null, error: null };
  }
}
