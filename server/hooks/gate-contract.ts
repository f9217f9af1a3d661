import type { ProtocolId } from '../ir/index.ts';
import type { GATE_EVENT } from './hook-settings.ts';

/** Gate questions and answers carry this version; a change that breaks either side bumps it. */
export const GATE_CONTRACT_VERSION = 1;

/** One lane a request may be served by. */
export interface GateLane {
  readonly model: string;
  readonly provider: string;
  readonly protocol: ProtocolId;
  readonly upstream_model: string;
}

/**
 * What a gate is asked (README, "Gate hooks"), POSTed as JSON. Metadata only, unless the hook has
 * include_content, which adds the client's request body as it was sent (`request`).
 */
export interface GateQuestion {
  readonly version: typeof GATE_CONTRACT_VERSION;
  readonly event: typeof GATE_EVENT;
  readonly hook: string;
  readonly request_id: string;
  /** The virtual key's id (never its secret); null when governance is off. */
  readonly key_id: string | null;
  /** The model or pool name the client asked for. */
  readonly model: string;
  /** The pool's name when `model` names a pool, else null. */
  readonly pool: string | null;
  /** The lanes the request may be served by, in the pool's order. */
  readonly lanes: readonly GateLane[];
  /** The client's wire protocol. */
  readonly ingress: ProtocolId;
  readonly stream: boolean;
  /** The TCP peer's address (a proxy in front of the gateway shows as itself). */
  readonly client_ip: string | null;
  readonly request?: unknown;
}

export type GateAnswer = { readonly allow: true } | { readonly allow: false; readonly reason: string | undefined };

/** A denial's reason reaches the client: short, printable. */
const MAX_REASON = 500;

/**
 * The gate's answer: a 2xx JSON object with a boolean `allow`, and when false an optional string
 * `reason`. Anything else is an error text (the hook's on_error then decides).
 */
export function parseGateAnswer(status: number, body: Buffer): GateAnswer | { readonly error: string } {
  if (status < 200 || status > 299) return { error: `answered HTTP ${status}` };
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return { error: 'answered with something that is not JSON' };
  }
  if (value === null || typeof value !== 'object' || typeof (value as { allow?: unknown }).allow !== 'boolean') {
    return { error: 'answered without a boolean "allow"' };
  }
  const answer = value as { allow: boolean; reason?: unknown };
  if (answer.allow) return { allow: true };
  const reason = typeof answer.reason === 'string' ? printable(answer.reason) : undefined;
  return { allow: false, reason: reason === '' ? undefined : reason };
}

function printable(text: string): string {
  const clean = text.replace(/[\x00-\x1f\x7f]+/g, ' ').trim();
  return clean.length > MAX_REASON ? `${clean.slice(0, MAX_REASON)}...` : clean;
}
