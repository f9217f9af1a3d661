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
  const read = readSecretText(ref, baseDir, env, 'secret file ');
  if ('error' in read) return read;
  const fromFile = ref.env === undefined;
  const value = fromFile ? read.text.replace(/\r?\n$/, '') : read.text;
  if (value === '') return { error: `${read.where} is empty` };
  if (CONTROL.test(value))
    return { error: `${read.where} contains a line break or control character${fromFile ? ' (only one trailing newline is ignored)' : ''}` };
  return { value };
}

/**
 * The text a reference names, as it is (a PEM block keeps its line breaks), and where it came
 * from for messages: `environment variable NAME`, or the file's path after `fileLabel`. An unset
 * or empty variable and an unreadable file are errors that quote nothing of the secret.
 */
export function readSecretText(ref: SecretRef, baseDir: string, env: NodeJS.ProcessEnv, fileLabel = ''): { text: string; where: string } | { error: string } {
  if (ref.env !== undefined) {
    const where = `environment variable ${ref.env}`;
    const text = env[ref.env];
    return text === undefined || text === '' ? { error: `${where} is not set` } : { text, where };
  }
  const file = ref.file ?? '';
  const path = isAbsolute(file) ? file : resolve(baseDir, file);
  const where = `${fileLabel}${path}`;
  try {
    return { text: readFileSync(path, 'utf8'), where };
  } catch (e) {
    return { error: `cannot read ${where} (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}
