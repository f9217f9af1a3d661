import { parseJsonObject } from '../../gateway/request-body.ts';
import type { OperationPricing } from '../../gateway/admission.ts';
import type { Operation } from '../../ir/operation.ts';
import type { ProtocolId } from '../../ir/index.ts';
import { replaceTopLevelString } from '../../protocols/passthrough.ts';
import { requireSameProtocolLane } from '../lane-protocol.ts';
import type { OperationDeclaration } from '../operation.ts';
import { relayAnswer, type OnAnswer } from '../relay-answer.ts';

/** What one JSON-bodied media route adds to the generic same-protocol forward. */
export interface JsonMediaRoute {
  readonly operation: Operation;
  /** The upstream path below the provider's base URL, e.g. `/moderations`. */
  readonly upstreamPath: string;
  /** Checks the fields pricing needs (400 naming the field) and prices the request. */
  price(json: Record<string, unknown>, body: Buffer): { pricing: OperationPricing; onAnswer?: OnAnswer };
}

/**
 * A JSON request of an operation served only within its protocol (OpenAI moderations, image
 * generation, speech): the client's bytes go to the lane with only `model` rewritten, and the
 * answer comes back as the upstream sends it (speech audio streamed as it arrives).
 */
export function jsonMediaOperation(protocol: ProtocolId, route: JsonMediaRoute): OperationDeclaration {
  return {
    operation: route.operation,
    prepare(exchange, body) {
      const json = parseJsonObject(body);
      const { pricing, onAnswer } = route.price(json, body);
      return {
        model: typeof json.model === 'string' ? json.model : undefined,
        gateBody: json,
        pricing,
        attempt(lane) {
          requireSameProtocolLane(lane, route.operation, protocol);
          const call = { path: route.upstreamPath, body: json.model === lane.upstreamModel ? body : replaceTopLevelString(body, 'model', lane.upstreamModel) };
          return (attempt) => relayAnswer(exchange, attempt, call, onAnswer);
        },
      };
    },
  };
}
