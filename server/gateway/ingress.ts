import type { ValidateFunction } from 'ajv';
import type { ProtocolId } from '../ir/index.ts';
import type { ProtocolDefinition } from '../protocols/definition.ts';
import { PROTOCOLS } from '../protocols/registry.ts';

/**
 * How one protocol is received from clients on its chat routes: the parts of its definition the
 * pipeline reads (codec, protocol headers, stream headers), and its chat request schema.
 */
export type Ingress = Pick<ProtocolDefinition, 'codec' | 'forwardedHeaders' | 'streamHeaders'> & { readonly validateRequest: ValidateFunction };

/** The chat ingress of every registered protocol, from its definition (protocols/<id>/index.ts). */
export const INGRESS = Object.fromEntries(
  PROTOCOLS.map((p) => [p.id, { codec: p.codec, validateRequest: p.validators.chat, forwardedHeaders: p.forwardedHeaders, streamHeaders: p.streamHeaders }]),
) as Readonly<Record<ProtocolId, Ingress>>;
