import type { DataPlaneTls, PemSource } from '../../generated/config-types.ts';
import type { ReportProblem } from './config-error.ts';
import { readSecretText } from './secret-ref.ts';
import { unusableTlsReason } from './tls-material.ts';
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
  const material = { cert, key, clientCa };
  const unusable = unusableTlsReason(material);
  if (unusable === undefined) return material;
  problem(['tls'], unusable);
  return undefined;
}

function readPem(source: PemSource, baseDir: string, env: NodeJS.ProcessEnv): { value: string } | { error: string } {
  const read = readSecretText(typeof source === 'string' ? { file: source } : source, baseDir, env);
  if ('error' in read) return read;
  if (!read.text.includes('-----BEGIN ')) return { error: `${read.where} holds no PEM block (-----BEGIN ...)` };
  return { value: read.text };
}
