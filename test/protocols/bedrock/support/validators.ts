import bedrockError from '../../../../generated/validators/bedrock-error.js';
import bedrockRequest from '../../../../generated/validators/bedrock-request.js';
import bedrockResponse from '../../../../generated/validators/bedrock-response.js';
import bedrockStreamEvent from '../../../../generated/validators/bedrock-stream-event.js';
import type { ProtocolValidators } from '../../support/validators.ts';

export const BEDROCK: ProtocolValidators = {
  request: bedrockRequest,
  response: bedrockResponse,
  streamEvent: bedrockStreamEvent,
  error: bedrockError,
};
