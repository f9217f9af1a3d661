import { GatewayFailure, gatewayError } from '../../ir/index.ts';

/** A 400 naming the request field at fault, in whatever protocol the client speaks. */
export function invalidField(path: string, message: string, code = 'invalid_request'): GatewayFailure {
  return new GatewayFailure(gatewayError('invalid_request', `${path}: ${message}`, { param: path, code }));
}

/** A 400 for a field the target protocol cannot express when dropping it would change the answer. */
export function unsupportedField(path: string, target: string, why: string): GatewayFailure {
  return invalidField(path, `cannot be translated to the ${target} protocol (${why})`, 'unsupported_parameter');
}
