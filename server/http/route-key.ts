import type { IncomingHttpHeaders } from 'node:http';
import type { Gateway } from '../gateway/gateway-context.ts';
import { presentedKey } from '../governance/key-carriers.ts';
import type { KeyRecord } from '../governance/key-record.ts';
import { GatewayFailure, type GatewayError } from '../ir/index.ts';

/**
 * How an operational route (/v1/models, /metrics, /stats) treats the client's key with governance
 * on: `required` refuses a request without a valid one (401); `optional` reads a key that is
 * presented and valid (the answer is narrowed to it) and ignores one that is not, since the route
 * answers anyone anyway; `none` never asks governance.
 */
export type KeyNeed = 'required' | 'optional' | 'none';

/** The key the answer is for (undefined: governance off, or none asked for or presented), or the refusal to answer. */
export type RouteKey = { readonly key: KeyRecord | undefined } | { readonly refusal: GatewayError };

const NO_KEY: RouteKey = Object.freeze({ key: undefined });

export async function routeKey(gateway: Gateway, headers: IncomingHttpHeaders, querystring: string, need: KeyNeed): Promise<RouteKey> {
  const { governance } = gateway;
  if (need === 'none' || !gateway.config.governance || governance === undefined) return NO_KEY;
  const query = new URLSearchParams(querystring);
  if (need === 'optional' && presentedKey(headers, query) === undefined) return NO_KEY;
  try {
    return { key: await governance.authenticate(headers, query) };
  } catch (error) {
    if (!(error instanceof GatewayFailure)) throw error;
    return need === 'required' ? { refusal: error.error } : NO_KEY;
  }
}
