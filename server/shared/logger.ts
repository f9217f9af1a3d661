import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/**
 * JSON lines on stdout (or `destination`). Credentials are redacted by key wherever they might appear in a logged
 * object, as a second line of defence: nothing should log them in the first place.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'gateway' },
    redact: {
      paths: [
        '*.authorization',
        '*.api_key',
        '*.apiKey',
        '*["x-api-key"]',
        '*["api-key"]',
        '*["x-goog-api-key"]',
        '*["x-admin-token"]',
        // Self-serve keys: OIDC tokens and the sign-in cookie.
        '*.id_token',
        '*.access_token',
        '*.idToken',
        '*.accessToken',
        '*.cookie',
        '*["set-cookie"]',
      ],
      censor: '[redacted]',
    },
  };
  // Asynchronous writes to stdout: lines written while a write is in flight go out together in the
  // next one, so a busy gateway makes one write per batch of request lines, not one per line (a
  // synchronous write per request showed as a large share of a request's CPU). Nothing waits for a
  // buffer to fill: an idle gateway's lines go out at once, and pending lines are flushed at exit.
  // If stdout stops being read, lines beyond 16 MiB waiting are dropped rather than held in memory.
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false, maxLength: 16 * 1024 * 1024 }));
}
