import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** The cookie that carries a sign-in from GET /auth/token to the issuer and back. */
export const LOGIN_COOKIE = 'gateway_sign_in';
/** Sign-ins must come back within this long. */
export const LOGIN_TTL_SECONDS = 600;

const SEAL_INFO = 'gateway self-serve sign-in cookie v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

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
 * Seals a sign-in's state into its own cookie (AES-256-GCM under a key derived from
 * governance_secret) instead of keeping it in server memory: nothing to expire or bound, and the
 * callback may reach any worker or restarted process. The person's browser holds it but can
 * neither read the PKCE verifier nor forge a state; a stale or tampered cookie opens as undefined.
 */
export class LoginSeal {
  readonly #key: Buffer;

  constructor(governanceSecret: string) {
    this.#key = Buffer.from(hkdfSync('sha256', governanceSecret, Buffer.alloc(0), SEAL_INFO, 32));
  }

  seal(login: LoginState): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(LOGIN_COOKIE));
    const body = Buffer.concat([cipher.update(JSON.stringify(login), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  open(sealed: string | undefined, nowMs: number): LoginState | undefined {
    if (sealed === undefined || !/^[A-Za-z0-9_-]+$/.test(sealed)) return undefined;
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
    let login: LoginState;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(LOGIN_COOKIE));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const text = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      login = JSON.parse(text) as LoginState;
    } catch {
      return undefined; // tampered, or sealed under another secret
    }
    const age = nowMs - login.startedAt;
    if (!(age >= 0 && age <= LOGIN_TTL_SECONDS * 1000)) return undefined;
    return login;
  }
}
