import { hkdfSync } from 'node:crypto';
import { EncryptJWT, jwtDecrypt } from 'jose';

/** The cookie that carries a sign-in from GET /auth/token to the issuer and back. */
export const LOGIN_COOKIE = 'gateway_sign_in';
/** Sign-ins must come back within this long. */
export const LOGIN_TTL_SECONDS = 600;
/**
 * Longest cookie value open() will try to decrypt. A sealed sign-in is about 400 characters (its
 * redirect URI is the only part of variable length); browsers keep at most 4096 bytes a cookie.
 */
export const LOGIN_COOKIE_MAX_CHARS = 3072;

// v2: a compact JWE (jose) since the hand-written AES-GCM of v1; a v1 cookie simply fails to open.
const SEAL_INFO = 'gateway self-serve sign-in cookie v2';
/** The JWE's `typ`, checked on open, so a JWE sealed for another purpose under the same key would not pass. */
const SEAL_TYPE = 'gateway-sign-in';

/** What the callback must check against: PKCE verifier, state, nonce, and where it was sent back to. */
export interface LoginState {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  readonly redirectUri: string;
  /** Milliseconds since the epoch. */
  readonly startedAt: number;
}

/**
 * Seals a sign-in's state into its own cookie instead of keeping it in server memory: nothing to
 * expire or bound, and the callback may reach any worker or restarted process. The cookie is a
 * compact JWE (`dir`, A256GCM, through jose, the project's one crypto path for tokens) under a key
 * derived from governance_secret, with `iat`/`exp` that jose checks. The person's browser holds it
 * but can neither read the PKCE verifier nor forge a state; a stale, tampered or foreign cookie
 * opens as undefined.
 */
export class LoginSeal {
  readonly #key: Uint8Array;

  constructor(governanceSecret: string) {
    this.#key = new Uint8Array(hkdfSync('sha256', governanceSecret, Buffer.alloc(0), SEAL_INFO, 32));
  }

  async seal(login: LoginState): Promise<string> {
    const issuedAt = Math.floor(login.startedAt / 1000);
    return new EncryptJWT({ ...login })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', typ: SEAL_TYPE })
      .setIssuedAt(issuedAt)
      .setNotBefore(issuedAt)
      .setExpirationTime(issuedAt + LOGIN_TTL_SECONDS)
      .encrypt(this.#key);
  }

  async open(sealed: string | undefined, nowMs: number): Promise<LoginState | undefined> {
    if (sealed === undefined || sealed.length > LOGIN_COOKIE_MAX_CHARS) return undefined;
    try {
      const { payload } = await jwtDecrypt(sealed, this.#key, {
        keyManagementAlgorithms: ['dir'],
        contentEncryptionAlgorithms: ['A256GCM'],
        typ: SEAL_TYPE,
        currentDate: new Date(nowMs),
        requiredClaims: ['iat', 'nbf', 'exp'],
      });
      return loginState(payload);
    } catch {
      return undefined; // malformed, tampered, sealed under another secret, not yet valid or expired
    }
  }
}

/** The sealed members, checked for shape although only this class writes them. */
function loginState(payload: Record<string, unknown>): LoginState | undefined {
  const { state, nonce, verifier, redirectUri, startedAt } = payload;
  if (
    typeof state !== 'string' ||
    typeof nonce !== 'string' ||
    typeof verifier !== 'string' ||
    typeof redirectUri !== 'string' ||
    typeof startedAt !== 'number'
  )
    return undefined;
  return { state, nonce, verifier, redirectUri, startedAt };
}
