import { numberAt, pick, type CountEndpointFor } from '../shared/count-endpoint.ts';
import { encodeRequest } from './encode-request.ts';

/** Members of a Messages body that `POST /v1/messages/count_tokens` takes. */
const COUNT_FIELDS = ['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'mcp_servers'];

export const anthropicCountEndpoint: CountEndpointFor = (request, lane) => ({
  path: '/v1/messages/count_tokens',
  body: pick(encodeRequest({ ...request, stream: false }, lane).body, COUNT_FIELDS),
  count: (answer) => numberAt(answer, 'input_tokens'),
});
