import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

/** Exactly one of the two is set (the config schema says so). */
export interface SecretRef {
  readonly env?: string;
  readonly file?: string;
}

/** A secret goes into an HTTP header, where these cannot: better refused at load than a 502 later. */
const CONTROL = /[\x00-\x1f\x7f]/;

/**
 * Reads a secret from the environment or a file. Returns an error text (never the secret) when it
 * cannot. A file's trailing newline is not part of the secret.
 */
export function readSecret(ref: SecretRef, baseDir: string, env: NodeJS.ProcessEnv): { value: string } | { error: string } {
  if (ref.env !== undefined) {
    const value = env[ref.env];
    if (value === undefined || value === '') return { error: `environment variable ${ref.env} is not set` };
    if (CONTROL.test(value)) return { error: `environment variable ${ref.env} contains a line break or control character` };
    return { value };
  }
  const file = ref.file ?? '';
  const path = isAbsolute(file) ? file : resolve(baseDir, file);
  try {
    const value = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    if (value === '') return { error: `secret file ${path} is empty` };
    if (CONTROL.test(value)) return { error: `secret file ${path} contains a line break or control character (only one trailing newline is ignored)` };
    return { value };
  } catch (e) {
    return { error: `cannot read secret file ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}
