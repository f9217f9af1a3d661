// The IR: types only, no runtime imports from outside this folder (ProtocolId is the registry's ids). Every codec decodes to and encodes from it.
export type * from './blocks.ts';
export type * from './request.ts';
export type * from './response.ts';
export type * from './stream-event.ts';
export type { ErrorKind, GatewayError } from './error.ts';
export type { ProtocolId } from './protocol-id.ts';
export { ZERO_USAGE } from './response.ts';
export { isContentEvent } from './stream-event.ts';
export { GatewayFailure, gatewayError, kindForStatus } from './error.ts';
export type * from './embeddings.ts';
