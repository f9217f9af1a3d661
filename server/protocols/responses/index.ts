import type { ProtocolCodec } from '../codec.ts';

/** Not built yet: the registry leaves the protocol out until this exports a codec. */
export const responsesCodec: ProtocolCodec | undefined = undefined;
