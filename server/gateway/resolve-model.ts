import type { ModelRoute, RuntimeConfig } from '../config/runtime-config.ts';
import { GatewayFailure, gatewayError } from '../ir/index.ts';

/**
 * The lanes a model or pool name may be served by, in the order to try them. A model is one lane;
 * a pool lists its members (weighted selection and failover come with the routing work).
 */
export function resolveLanes(config: RuntimeConfig, name: string | undefined): readonly ModelRoute[] {
  if (name === undefined || name === '') {
    throw new GatewayFailure(gatewayError('invalid_request', 'model: a model name is required', { param: 'model', code: 'missing_model' }));
  }
  const model = config.models.get(name);
  if (model !== undefined) return [model];
  const pool = config.pools.get(name);
  if (pool !== undefined && pool.members.length > 0) return pool.members.map((m) => m.model);
  throw new GatewayFailure(gatewayError('not_found', `model "${name}" is not configured on this gateway (GET /v1/models lists the names)`, { param: 'model', code: 'model_not_found' }));
}
