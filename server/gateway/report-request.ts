import type { Exchange } from './gateway-context.ts';

/** Exactly one record per request, whatever the ending and the operation, handed to every observer. */
export function reportRequest(exchange: Exchange): void {
  const { observers } = exchange.gateway;
  if (observers.length === 0) return;
  const record = exchange.meter.finish({
    requestId: exchange.requestId,
    configVersion: exchange.gateway.config.configVersion,
    ingress: exchange.ingress.codec.id,
    res: exchange.res,
    clientGone: exchange.clientGone.aborted && !exchange.meter.delivered,
  });
  const content = exchange.content?.content();
  for (const observer of observers) {
    try {
      observer.record(record, content);
    } catch (error) {
      exchange.log.error({ err: error }, 'a request observer failed'); // observers must not throw; the request is unaffected
    }
  }
}
