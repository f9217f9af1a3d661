// The governance settings in config.yaml: governance on needs db_path; governance_secret is a
// secret reference read like the others.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../server/config/config-error.ts';
import { loadConfigFile } from '../../server/config/load-config.ts';

function configFile(lines: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-governance-config-'));
  const file = join(dir, 'config.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'governance.secret'), 'from-a-file\n');
  return file;
}

function problems(file: string, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    loadConfigFile(file, { env });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('the config loaded');
}

describe('governance configuration', () => {
  it('refuses governance: on without db_path, at the governance line', () => {
    const file = configFile(['log_level: silent', 'governance: on']);
    const error = problems(file);
    expect(error.problems).toEqual([expect.objectContaining({ file, path: 'governance', line: 2 })]);
    expect(error.message).toContain(`${file}:2:`);
    expect(error.message).toContain('governance is on but neither db_path nor database_url is set');
  });

  it('accepts governance with db_path, or db_path alone (keys can be made before governance is on)', () => {
    const on = loadConfigFile(configFile(['governance: on', 'db_path: ./gateway.db']), { env: {} });
    expect(on).toMatchObject({ governance: true, governanceSecret: undefined });
    expect(on.dbPath).toMatch(/gateway\.db$/);
    expect(loadConfigFile(configFile(['db_path: ./gateway.db']), { env: {} })).toMatchObject({ governance: false });
  });

  it('reads governance_secret from the environment or a file', () => {
    expect(
      loadConfigFile(configFile(['db_path: ./g.db', 'governance_secret: { env: GOV_SECRET }']), { env: { GOV_SECRET: 'from-env' } }).governanceSecret,
    ).toBe('from-env');
    expect(loadConfigFile(configFile(['db_path: ./g.db', 'governance_secret: { file: ./governance.secret }']), { env: {} }).governanceSecret).toBe(
      'from-a-file',
    );
  });

  it('reports an unset governance_secret at its line, without the secret', () => {
    const file = configFile(['db_path: ./g.db', 'governance_secret: { env: GOV_SECRET }']);
    expect(problems(file).problems).toEqual([
      expect.objectContaining({ path: 'governance_secret', line: 2, message: 'environment variable GOV_SECRET is not set' }),
    ]);
    expect(problems(configFile(['governance_secret: { value: inline }'])).message).toContain('governance_secret');
  });

  it('reads database_url as a secret reference, with on_store_error and the lease; never quotes it', () => {
    const url = 'postgres://gw:pa55word@db.internal:5432/gateway';
    const config = loadConfigFile(
      configFile(['governance: on', 'database_url: { env: GATEWAY_DATABASE_URL }', 'on_store_error: allow', 'reservation_lease_seconds: 5']),
      { env: { GATEWAY_DATABASE_URL: url } },
    );
    expect(config).toMatchObject({ governance: true, databaseUrl: url, dbPath: undefined, onStoreError: 'allow', reservationLeaseMs: 5000 });
    expect(loadConfigFile(configFile(['database_url: { env: U }']), { env: { U: url } })).toMatchObject({ onStoreError: 'deny', reservationLeaseMs: 30_000 });
    const bad = problems(configFile(['database_url: { env: U }']), { U: 'mysql://gw:pa55word@db/x' });
    expect(bad.problems).toEqual([expect.objectContaining({ path: 'database_url', line: 1 })]);
    expect(bad.message).not.toContain('pa55word');
  });

  it("refuses db_path and database_url together, and the shared store's settings without it", () => {
    const both = problems(configFile(['db_path: ./g.db', 'database_url: { env: U }']), { U: 'postgres://h/db' });
    expect(both.message).toContain('db_path and database_url are both set');
    const alone = problems(configFile(['db_path: ./g.db', 'on_store_error: allow']));
    expect(alone.problems).toEqual([expect.objectContaining({ path: 'on_store_error', line: 2 })]);
    expect(problems(configFile(['on_store_error: maybe'])).message).toContain('on_store_error');
  });
});
