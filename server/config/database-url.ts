import type { GatewayConfig } from '../../generated/config-types.ts';
import type { ReportProblem } from './config-error.ts';
import { readSecret } from './secret-ref.ts';

/**
 * `database_url:` read and checked at load (so `gateway --validate` says what is wrong), never
 * quoted in a message: the URL usually carries a password.
 */
export function resolveDatabaseUrl(config: GatewayConfig, baseDir: string, env: NodeJS.ProcessEnv, problem: ReportProblem): string | undefined {
  if (config.database_url === undefined) {
    if (config.on_store_error !== undefined) problem(['on_store_error'], 'on_store_error applies to the shared store only: set database_url, or remove it');
    if (config.reservation_lease_seconds !== undefined)
      problem(['reservation_lease_seconds'], 'reservation_lease_seconds applies to the shared store only: set database_url, or remove it');
    return undefined;
  }
  if (config.db_path !== undefined) {
    problem(
      ['database_url'],
      'db_path and database_url are both set: choose one store (db_path: the embedded file for one gateway; database_url: PostgreSQL shared by several)',
    );
  }
  const secret = readSecret(config.database_url, baseDir, env);
  if ('error' in secret) {
    problem(['database_url'], secret.error);
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(secret.value);
  } catch {
    problem(['database_url'], 'is not a URL: expected postgres://user:password@host:port/database');
    return undefined;
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    problem(['database_url'], `has the scheme ${url.protocol.slice(0, 20)} where postgres: or postgresql: is expected`);
    return undefined;
  }
  return secret.value;
}
