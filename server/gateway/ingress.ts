import type { ValidateFunction } from 'ajv';
import type { ProtocolId } from '../ir/index.ts';
import type { ProtocolCodec, RequestOrigin } from '../protocols/codec.ts';
import { PROTOCOLS } from '../protocols/registry.ts';

/** How one protocol is received from clients: its codec, its request schema, its protocol headers. */
export interface Ingress {
  readonly codec: ProtocolCodec;
  readonly validateRequest: ValidateFunction;
  /** Client headers that belong to the protocol (not the account) and go upstream on the same-protocol path. */
  readonly forwardedHeaders: readonly string[];
  /** Response headers of a translated stream in this protocol's framing. */
  streamHeaders(origin: RequestOrigin): Readonly<Record<string, string>>;
}

/** The chat ingress of every registered protocol, from its definition (protocols/<id>/index.ts). */
export const INGRESS = Object.fromEntries(
  PROTOCOLS.map((p) => [p.id, { codec: p.codec, validateRequest: p.validators.chat, forwardedHeaders: p.forwardedHeaders, streamHeaders: p.streamHeaders }]),
) as Readonly<Record<ProtocolId, Ingress>>;
