import { GatewayFailure, gatewayError } from '../ir/index.ts';
import { forwardSameProtocol } from './forward-same-protocol.ts';
import type { Exchange } from './gateway-context.ts';
import { parseRequestJson, readRequestBody } from './request-body.ts';
import { resolveLanes } from './resolve-model.ts';
import { translate } from './translate.ts';

/**
 * One chat request, top to bottom (DESIGN.md, "The request pipeline"). Every failure reaches the
 * client in its own protocol's error shape with a status that says whose fault it was.
 */
export async function handleChat(exchange: Exchange): Promise<void> {
  const { gateway, ingress, res } = exchange;
  try {
    const body = await readRequestBody(exchange.req, gateway.config.limits.maxRequestBytes);
    const json = parseRequestJson(body, ingress.validateRequest);
    const modelName = exchange.origin.pathModel ?? (json.model as string | undefined);
    const lanes = resolveLanes(gateway.config, modelName);
    const lane = lanes[0];
    if (lane === undefined) throw new Error('resolveLanes returned no lane');
    const stream = exchange.origin.pathStream ?? json.stream === true;
    exchange.log.debug({ model: modelName, lane: lane.name, provider: lane.provider.name, stream }, 'routing');
    if (lane.provider.protocol === ingress.codec.id) await forwardSameProtocol(exchange, lane, body, stream);
    else await translate(exchange, lane, json);
  } catch (error) {
    if (exchange.signal.aborted) return; // the client left; there is no one to answer
    if (error instanceof GatewayFailure) {
      exchange.log.info({ status: error.error.status, kind: error.error.kind, code: error.error.code }, error.error.message);
      res.sendError(ingress.codec, error.error);
      return;
    }
    exchange.log.error({ err: error }, 'unexpected failure');
    res.sendError(ingress.codec, gatewayError('server', 'internal gateway error', { code: 'internal_error' }));
  }
}
