import type { ModelRoute, Operation } from '../config/runtime-config.ts';
import { GatewayFailure, gatewayError, type GatewayError } from '../ir/index.ts';
import type { PoolRouter } from '../routing/pool-router.ts';
import type { Exchange, Gateway } from './gateway-context.ts';

/**
 * The model or pool a request names, as its router (404 for a name not configured), noted on the
 * request's meter; refused with a 400 when none of its lanes serves the operation asked for.
 */
export function resolveModel(exchange: Exchange, name: string | undefined, operation: Operation): PoolRouter<ModelRoute> {
  const router = configuredRouter(exchange.gateway, name);
  exchange.meter.model = router.name;
  if (exchange.gateway.config.pools.has(router.name)) exchange.meter.pool = router.name;
  requireRouterOperation(router, operation);
  return router;
}

/** The router of a model or pool name: 400 when there is no name, 404 when it is not configured. */
export function configuredRouter(gateway: Gateway, name: string | undefined): PoolRouter<ModelRoute> {
  if (name === undefined || name === '') {
    throw new GatewayFailure(gatewayError('invalid_request', 'model: a model name is required', { param: 'model', code: 'missing_model' }));
  }
  const router = gateway.routing.router(name);
  if (router === undefined) throw new GatewayFailure(modelNotFound(name));
  return router;
}

/** A name no model or pool has (a request's model, or `GET /v1/models/{id}`): 404 pointing at the list. */
export function modelNotFound(name: string): GatewayError {
  return gatewayError('not_found', `model "${name}" is not configured on this gateway (GET /v1/models lists the names)`, {
    param: 'model',
    code: 'model_not_found',
  });
}

/** 400 when none of the router's lanes serves the operation (a plain loop: every chat request asks, no closure). */
export function requireRouterOperation(router: PoolRouter<ModelRoute>, operation: Operation): void {
  for (const member of router.members) if (member.lane.operations.has(operation)) return;
  throw operationNotServed(router.name, router.members[0]?.lane, operation);
}

/**
 * A lane that does not serve the operation, in a pool where another does: refused as a lane that
 * cannot express the request, so failover skips it without touching its state.
 */
export function requireLaneOperation(lane: ModelRoute, operation: Operation): void {
  if (!lane.operations.has(operation)) throw operationNotServed(lane.name, lane, operation);
}

function operationNotServed(name: string, lane: ModelRoute | undefined, operation: Operation): GatewayFailure {
  const serves = lane === undefined ? '' : ` (it serves ${[...lane.operations].join(', ')})`;
  return new GatewayFailure(
    gatewayError('invalid_request', `model "${name}" does not serve ${operation}${serves}; its operations: list in config.yaml says what it serves`, {
      param: 'model',
      code: 'operation_not_supported',
    }),
  );
}

/** The lanes of a model or pool that serve the operation (what a reservation must cover). */
export function servingLanes(router: PoolRouter<ModelRoute>, operation: Operation): ModelRoute[] {
  const lanes: ModelRoute[] = [];
  for (const member of router.members) if (member.lane.operations.has(operation)) lanes.push(member.lane);
  return lanes;
}
