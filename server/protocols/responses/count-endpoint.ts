import { numberAt, pick, type CountEndpointFor } from '../shared/count-endpoint.ts';
import { encodeRequest } from './encode-request.ts';

/** Members of a Responses body that `POST /v1/responses/input_tokens` takes. */
const COUNT_FIELDS = ['model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'reasoning', 'text', 'truncation'];

/**
 * OpenAI counts through the Responses API, for Chat Completions lanes too; an OpenAI-compatible
 * provider without it answers 404 (then: an estimate).
 */
export const responsesCountEndpoint: CountEndpointFor = (request, lane) => ({
  path: '/responses/input_tokens',
  body: pick(encodeRequest({ ...request, stream: false }, lane).body, COUNT_FIELDS),
  count: (answer) => numberAt(answer, 'input_tokens'),
});
