import { gatewayError, GatewayFailure } from '../../ir/error.ts';

/** How soon a client refused for want of the store is told to come back. */
export const STORE_RETRY_AFTER_SECONDS = 2;

/**
 * The refusal for a request that needs the shared store while it cannot be reached: 503 with
 * Retry-After, in the client's protocol shape (the HTTP layer encodes it), naming no address.
 */
export function storeUnavailable(): GatewayFailure {
  return new GatewayFailure(
    gatewayError('unavailable', 'the gateway cannot reach its governance store (PostgreSQL) to account for this request; retry shortly', {
      code: 'store_unavailable',
      retryAfterSeconds: STORE_RETRY_AFTER_SECONDS,
    }),
  );
}

/** A refusal of ours passes as it is; anything else the database or the driver threw is the store being unavailable. */
export function asStoreFailure(error: unknown): GatewayFailure {
  return error instanceof GatewayFailure ? error : storeUnavailable();
}
