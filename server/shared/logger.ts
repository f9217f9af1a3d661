import { pino, type DestinationStream, type Logger } from 'pino';
import { LOG_BATCH_MS, LineBatch } from './line-batch.ts';

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
  return pino(options, destination ?? stdoutDestination());
}

/** Batches handed on to stdout still pending, flushed at exit (weakly held: tests make many loggers). */
const pendingAtExit = new Set<WeakRef<LineBatch>>();
let exitHookInstalled = false;

/**
 * Asynchronous writes to stdout: lines written while a write is in flight go out together in the
 * next one, so a busy gateway makes one write per batch of request lines, not one per line (a
 * synchronous write per request showed as a large share of a request's CPU). In front of it, the
 * lines of a few milliseconds (LOG_BATCH_MS) are handed on as one string (LineBatch): the
 * destination measures the text it holds on every write, so a line at a time cost more the more
 * lines it held, and each write it starts wakes a thread. Nothing waits for a buffer to fill: an
 * idle gateway's lines go out within LOG_BATCH_MS, and pending lines are flushed at exit. If
 * stdout stops being read, lines beyond 16 MiB waiting are dropped rather than held in memory.
 */
function stdoutDestination(): DestinationStream {
  // Hand pending lines on at exit before pino's own exit hook writes out what the destination
  // holds: that hook is installed with the first destination, so this one goes in before it.
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const ref of pendingAtExit) ref.deref()?.flush();
    });
  }
  const stdout = pino.destination({ dest: 1, sync: false, maxLength: 16 * 1024 * 1024 });
  const batch = new LineBatch((text) => stdout.write(text), LOG_BATCH_MS);
  for (const ref of pendingAtExit) if (ref.deref() === undefined) pendingAtExit.delete(ref);
  pendingAtExit.add(new WeakRef(batch));
  return batch;
}
