import { createHmac, randomBytes } from 'node:crypto';
import type { Store } from './store.ts';

/** A value derived from the secret and kept in meta, to tell whether today's secret is the one the keys were hashed with. */
const CHECK_LABEL = 'gateway governance secret check v1';

export interface ServerSecret {
  readonly value: string;
  /** True when no governance_secret is configured and the store's own is used. */
  readonly fromStore: boolean;
}

/**
 * The secret key hashes are made with: the configured `governance_secret`, or else one generated
 * on first use and kept in the store's meta table. The configured one is better: kept apart from
 * the database, a stolen file cannot confirm a guessed key. Opening with a different secret than
 * the keys were hashed with is refused, since every key would silently stop working.
 */
export function resolveServerSecret(store: Store, configured: string | undefined): ServerSecret {
  return store.transaction(() => {
    const read = store.db.prepare('SELECT value FROM meta WHERE key = ?');
    const write = store.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    let value = configured;
    if (value === undefined) {
      value = (read.get('generated_secret') as { value: string } | undefined)?.value;
      if (value === undefined) {
        value = randomBytes(32).toString('base64url');
        write.run('generated_secret', value);
      }
    }
    const check = secretCheck(value);
    const stored = (read.get('secret_check') as { value: string } | undefined)?.value;
    if (stored === undefined) write.run('secret_check', check);
    else if (stored !== check) {
      throw new Error(
        `${store.path}: its keys were hashed with a different governance secret than the one now ${configured === undefined ? 'in use (none is configured)' : 'configured'}: restore the original governance_secret, or use a new db_path and issue new keys`,
      );
    }
    return { value, fromStore: configured === undefined };
  });
}

/** What meta keeps to recognise the secret later: a one-way value, useless for hashing keys. */
export function secretCheck(secret: string): string {
  return createHmac('sha256', secret).update(CHECK_LABEL).digest('hex');
}
