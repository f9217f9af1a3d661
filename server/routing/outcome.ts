import type { GatewayError } from '../ir/index.ts';

/**
 * What an attempt's result says about the lane (DESIGN.md, "Outcome attribution"). Only lane
 * faults count toward tripping; capacity and config faults cool the lane without counting;
 * the client's faults and the gateway's own decisions never touch lane state.
 */
export type Outcome = 'success' | 'lane_fault' | 'lane_capacity' | 'lane_config_fault' | 'client_fault';

/** Classifies an upstream failure (already classified by the catalog's error_map into a kind). */
export function outcomeOf(error: GatewayError): Outcome {
  switch (error.kind) {
    case 'rate_limit':
      return 'lane_capacity';
    case 'billing':
    case 'authentication':
    case 'permission':
    case 'not_found':
      return 'lane_config_fault';
    case 'invalid_request':
    case 'request_too_large':
      return 'client_fault';
    case 'overloaded':
    case 'server':
    case 'timeout':
    case 'unavailable':
      return 'lane_fault';
  }
}

/** May another lane be tried after this outcome? Not after the client's own fault. */
export function allowsFailover(outcome: Outcome): boolean {
  return outcome === 'lane_fault' || outcome === 'lane_capacity' || outcome === 'lane_config_fault';
}
