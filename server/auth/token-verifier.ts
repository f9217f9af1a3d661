import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { OidcSettings } from '../config/runtime-config.ts';
import { AuthFailure, invalidToken } from './auth-failure.ts';
import type { DiscoveredIssuer } from './oidc-issuer.ts';

/** A compact JWS: three base64url parts (the signature may be empty, as in `alg: none`). */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/;

/** OIDC Core: sub is at most 255 ASCII characters. */
const MAX_SUBJECT_LENGTH = 255;

/** An ID token whose signature, issuer, audience and times all check out. */
export interface VerifiedIdToken {
  readonly issuer: string;
  readonly subject: string;
  readonly claims: JWTPayload;
}

/**
 * Verifies an ID token with jose against the issuer's JWKS: the signature with one of the allowed
 * (public-key) algorithms only, so `alg: none` and an HMAC signed with the public key as secret
 * are refused before any key is used; the exact issuer; an accepted audience (and, when the token
 * has several, an accepted azp); exp and nbf with the clock tolerance; iat no older than
 * max_token_age. Every refusal is a 401 AuthFailure whose reason names the check; a malformed
 * string is a 400; an issuer that cannot be reached is a 503.
 */
export async function verifyIdToken(token: string, issuer: DiscoveredIssuer, settings: OidcSettings): Promise<VerifiedIdToken> {
  if (!COMPACT_JWS.test(token)) {
    const parts = token.split('.').length;
    throw new AuthFailure(
      400,
      'malformed_token',
      parts === 5 ? 'id_token is an encrypted JWT (JWE): send the signed ID token' : 'id_token is not a JWT (three base64url parts separated by dots)',
    );
  }
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(token, issuer.keys, {
      algorithms: [...issuer.algorithms],
      issuer: settings.issuer,
      audience: [...settings.audiences],
      clockTolerance: settings.clockToleranceSeconds,
      maxTokenAge: settings.maxTokenAgeSeconds,
      requiredClaims: ['sub', 'iat', 'exp'],
    }));
  } catch (error) {
    throw refusal(error, settings);
  }
  const audiences = typeof claims.aud === 'string' ? [claims.aud] : (claims.aud ?? []);
  if (claims.azp !== undefined && !settings.audiences.includes(String(claims.azp))) {
    throw invalidToken('audience', 'the ID token was issued to another client (azp): it is not accepted here');
  }
  if (audiences.length > 1 && claims.azp === undefined) {
    throw invalidToken('audience', 'the ID token has several audiences and no azp naming the client it was issued to');
  }
  const subject = claims.sub;
  if (typeof subject !== 'string' || subject.length === 0 || subject.length > MAX_SUBJECT_LENGTH) {
    throw invalidToken('claims', `the ID token's sub must be a string of 1 to ${MAX_SUBJECT_LENGTH} characters`);
  }
  return { issuer: settings.issuer, subject, claims };
}

function refusal(error: unknown, settings: OidcSettings): AuthFailure {
  if (error instanceof AuthFailure) return error; // the issuer's JWKS could not be fetched
  if (error instanceof joseErrors.JWTExpired) {
    // jose reports an iat older than maxTokenAge as expired too.
    return error.claim === 'iat'
      ? invalidToken('too_old', `the ID token was issued more than ${settings.maxTokenAgeSeconds} s ago: sign in again for a fresh one`, error)
      : invalidToken('expired', 'the ID token has expired: sign in again for a fresh one', error);
  }
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case 'nbf':
        return invalidToken('not_yet_valid', 'the ID token is not valid yet (nbf is in the future): check the clocks', error);
      case 'iat':
        return error.reason === 'check_failed'
          ? invalidToken('not_yet_valid', 'the ID token was issued in the future (iat): check the clocks', error)
          : invalidToken('claims', 'the ID token has no valid iat (issued at) claim', error);
      case 'iss':
        return invalidToken('issuer', `the ID token was not issued by ${settings.issuer}`, error);
      case 'aud':
        return invalidToken('audience', `the ID token was issued to another client (accepted audiences: ${settings.audiences.join(', ')})`, error);
      default:
        return invalidToken('claims', `the ID token's ${error.claim} claim is ${error.reason === 'missing' ? 'missing' : 'not valid'}`, error);
    }
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed)
    return invalidToken('algorithm', 'the ID token is signed with an algorithm that is not accepted (never none or HMAC)', error);
  if (error instanceof joseErrors.JWKSNoMatchingKey)
    return invalidToken('unknown_key', 'the ID token is signed with a key the issuer does not publish (unknown kid)', error);
  if (error instanceof joseErrors.JWKSMultipleMatchingKeys)
    return invalidToken('unknown_key', 'the ID token names no key id and the issuer publishes several keys', error);
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return invalidToken('signature', "the ID token's signature does not verify", error);
  if (error instanceof joseErrors.JOSENotSupported)
    return invalidToken('algorithm', 'the ID token uses an algorithm or key this gateway does not support', error);
  if (error instanceof joseErrors.JWTInvalid || error instanceof joseErrors.JWSInvalid) {
    return invalidToken('malformed', 'the ID token is not a valid signed JWT (bad header, payload or claims)', error);
  }
  if (error instanceof joseErrors.JOSEError) return invalidToken('invalid', 'the ID token is not valid', error);
  throw error; // a bug, not a refusal
}
