import type { OperationPricing } from '../../gateway/admission.ts';
import type { AttemptResult } from '../../gateway/attempt-result.ts';
import type { Exchange } from '../../gateway/gateway-context.ts';
import type { Operation } from '../../ir/operation.ts';
import type { ProtocolId } from '../../ir/index.ts';
import { requireSameProtocolLane } from '../lane-protocol.ts';
import type { OperationDeclaration } from '../operation.ts';
import { relayAnswer, type OnAnswer } from '../relay-answer.ts';
import { StreamedUpload } from './streamed-upload.ts';

/** What one multipart route adds to the streamed same-protocol forward. */
export interface MultipartRoute {
  readonly operation: Operation;
  /** The upstream path below the provider's base URL, e.g. `/audio/transcriptions`. */
  readonly upstreamPath: string;
  /**
   * Prices the request from what was read of it (the small fields before the model); `worstBytes`
   * is its declared length, or the limit when it declares none.
   */
  price(exchange: Exchange, upload: StreamedUpload, worstBytes: number): { pricing: OperationPricing; onAnswer?: OnAnswer };
}

/**
 * A multipart/form-data request (audio transcription and translation, image edits and variations)
 * forwarded within its protocol without buffering the upload: read up to its `model` part, the
 * model's value rewritten for the lane, the rest piped through as it arrives (413 the moment it
 * passes the limit, the connection then closed unread). Failover: a lane that fails is followed by
 * the next only while the upload read so far fits the replay bound (StreamedUpload.REPLAY_BYTES);
 * past it the client gets that lane's error.
 */
export function multipartOperation(protocol: ProtocolId, route: MultipartRoute): OperationDeclaration {
  return {
    operation: route.operation,
    async prepareUpload(exchange, limit, hold) {
      const upload = await StreamedUpload.open(exchange.req, limit, hold);
      const { pricing, onAnswer } = route.price(exchange, upload, upload.declaredLength ?? limit);
      let lastFailure: AttemptResult | undefined;
      return {
        model: upload.model.value,
        gateBody: Object.fromEntries([...upload.model.fields, ['model', upload.model.value]]),
        pricing,
        attempt(lane) {
          requireSameProtocolLane(lane, route.operation, protocol);
          const length = upload.lengthWith(lane.upstreamModel);
          const call = {
            path: route.upstreamPath,
            body: upload.body(lane.upstreamModel),
            contentType: upload.contentType,
            ...(length !== undefined && { contentLength: length }),
          };
          return async (attempt) => {
            // Past the replay bound the upload cannot start again: the previous lane's failure stands.
            if (!upload.canStart && lastFailure !== undefined && lastFailure.status === 'failed') return { ...lastFailure, outcome: 'client_fault' };
            const result = await relayAnswer(exchange, attempt, call, onAnswer);
            // The client's upload broke the limit while streaming: its 413, and the connection closed unread.
            if (upload.failure !== undefined && result.status !== 'committed') throw upload.failure;
            lastFailure = result;
            return result;
          };
        },
      };
    },
  };
}
