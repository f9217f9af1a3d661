import { numberAt, type CountEndpointFor } from '../shared/count-endpoint.ts';
import { encodeRequest } from './encode-request.ts';

/** countTokens takes the whole generateContent request, with the model named as a resource. */
export const geminiCountEndpoint: CountEndpointFor = (request, lane) => {
  const generateContentRequest = { model: `models/${lane.model}`, ...encodeRequest({ ...request, stream: false }, lane).body };
  return {
    path: `/v1beta/models/${encodeURIComponent(lane.model)}:countTokens`,
    body: { generateContentRequest },
    count: (answer) => numberAt(answer, 'totalTokens'),
  };
};
