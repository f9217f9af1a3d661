import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * JSON lines on stdout. Credentials are redacted by key wherever they might appear in a logged
 * object, as a second line of defence: nothing should log them in the first place.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'gateway' },
    redact: {
      paths: [
        '*.authorization', '*.api_key', '*.apiKey', '*["x-api-key"]', '*["api-key"]', '*["x-goog-api-key"]', '*["x-admin-token"]',
        // Self-serve keys: OIDC tokens and the sign-in cookie.
        '*.id_token', '*.access_token', '*.idToken', '*.accessToken', '*.cookie', '*["set-cookie"]',
      ],
      censor: '[redacted]',
    },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
