import { numberAt, pick, type CountEndpointFor } from '../shared/count-endpoint.ts';
import { encodeRequest } from './encode-request.ts';

/** Members of a Converse body that Bedrock's CountTokens takes (as `input.converse`). */
const COUNT_FIELDS = ['messages', 'system', 'toolConfig', 'additionalModelRequestFields'];

/** CountTokens (`POST /model/{id}/count-tokens`): models without it answer an error (then: an estimate). */
export const bedrockCountEndpoint: CountEndpointFor = (request, lane) => ({
  path: `/model/${encodeURIComponent(lane.model)}/count-tokens`,
  body: { input: { converse: pick(encodeRequest({ ...request, stream: false }, lane).body, COUNT_FIELDS) } },
  count: (answer) => numberAt(answer, 'inputTokens'),
});
