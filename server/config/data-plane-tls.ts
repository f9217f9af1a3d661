import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { DataPlaneTls, PemSource } from '../../generated/config-types.ts';
import type { ReportProblem } from './config-error.ts';
import type { TlsMaterial } from './runtime-config.ts';

/**
 * The data plane's `tls:` read at load: each part from a file path, `{ file }` or `{ env }` (the
 * PEM text itself), then tried together, so a missing file, a key that does not match its
 * certificate or a malformed CA stops the start (and `--validate`) instead of the first handshake.
 * Problems never quote the PEM text.
 */
export function resolveDataPlaneTls(tls: DataPlaneTls | undefined, baseDir: string, env: NodeJS.ProcessEnv, problem: ReportProblem): TlsMaterial | undefined {
  if (tls === undefined) return undefined;
  const read = (field: 'cert' | 'key' | 'client_ca', source: PemSource | undefined): string | undefined => {
    if (source === undefined) return undefined;
    const result = readPem(source, baseDir, env);
    if ('value' in result) return result.value;
    problem(['tls', field], result.error);
    return undefined;
  };
  const cert = read('cert', tls.cert);
  const key = read('key', tls.key);
  const clientCa = read('client_ca', tls.client_ca);
  if (cert === undefined || key === undefined || (tls.client_ca !== undefined && clientCa === undefined)) return undefined;
  try {
    createSecureContext({ cert, key, ...(clientCa !== undefined && { ca: clientCa }) });
  } catch (e) {
    // OpenSSL's reason (e.g. "key values mismatch"), which names no secret.
    problem(['tls'], `the certificate, key and client CA cannot be used together (${(e as Error).message})`);
    return undefined;
  }
  return { cert, key, clientCa };
}

function readPem(source: PemSource, baseDir: string, env: NodeJS.ProcessEnv): { value: string } | { error: string } {
  let text: string;
  let where: string;
  if (typeof source === 'object' && source.env !== undefined) {
    where = `environment variable ${source.env}`;
    const value = env[source.env];
    if (value === undefined || value === '') return { error: `${where} is not set` };
    text = value;
  } else {
    const file = typeof source === 'string' ? source : source.file ?? '';
    where = isAbsolute(file) ? file : resolve(baseDir, file);
    try {
      text = readFileSync(where, 'utf8');
    } catch (e) {
      return { error: `cannot read ${where} (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
    }
  }
  if (!text.includes('-----BEGIN ')) return { error: `${where} holds no PEM block (-----BEGIN ...)` };
  return { value: text };
}
