import type { ModelRoute } from '../config/runtime-config.ts';
import { GatewayFailure, gatewayError, type ProtocolId } from '../ir/index.ts';
import type { Operation } from '../ir/operation.ts';
import { protocolDefinition } from '../protocols/registry.ts';

/**
 * For operations forwarded only within one protocol (moderations, images, audio, rerank): a lane
 * whose protocol has no such operation (images on an Anthropic lane), or has it in another wire
 * format the gateway does not translate, cannot serve the request. Thrown as a 400 naming the
 * operation, so failover skips the lane untouched and the 400 is the answer when no lane can.
 */
export function requireSameProtocolLane(lane: ModelRoute, operation: Operation, client: ProtocolId | readonly ProtocolId[]): void {
  const upstream = lane.provider.protocol;
  if (!protocolDefinition(upstream).upstreamOperations.includes(operation)) {
    throw new GatewayFailure(
      gatewayError('invalid_request', `the ${upstream} protocol has no ${operation} operation: lane "${lane.name}" cannot serve ${operation}`, {
        param: 'model',
        code: 'operation_not_supported',
      }),
    );
  }
  const accepted = typeof client === 'string' ? [client] : client;
  if (!accepted.includes(upstream)) {
    throw new GatewayFailure(
      gatewayError(
        'invalid_request',
        `${operation} requests are not translated between protocols: lane "${lane.name}" speaks ${upstream}, this route ${accepted.join(' or ')}`,
        { param: 'model', code: 'operation_not_supported' },
      ),
    );
  }
}
