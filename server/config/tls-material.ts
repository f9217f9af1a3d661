import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { TlsMaterial } from './runtime-config.ts';

/** The secure-context part of a server's TLS options (what SIGHUP may replace). */
export function secureContextOptions(tls: TlsMaterial): SecureContextOptions {
  return { cert: tls.cert, key: tls.key, ...(tls.clientCa !== undefined && { ca: tls.clientCa }) };
}

/**
 * Why a certificate, key and client CA cannot serve together (a key that does not match its
 * certificate, a malformed CA), or undefined when they can: OpenSSL's reason, which names no secret.
 */
export function unusableTlsReason(tls: TlsMaterial): string | undefined {
  try {
    createSecureContext(secureContextOptions(tls));
    return undefined;
  } catch (e) {
    return `the certificate, key and client CA cannot be used together (${(e as Error).message})`;
  }
}
