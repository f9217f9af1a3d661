// The PostgreSQL store's settings need a restart: a reload that changes database_url,
// on_store_error or reservation_lease_seconds is refused at that line, without quoting the URL.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { restartProblems } from '../../server/config/restart-settings.ts';

const dir = mkdtempSync(join(tmpdir(), 'gateway-restart-settings-'));
const env = { S: 's3cret-for-hashing', A: 'postgres://gw:first-pa55@db-a/gateway', B: 'postgres://gw:second-pa55@db-b/gateway' };
const base = [
  'log_level: silent',
  'governance: on',
  'governance_secret: { env: S }',
  'database_url: { env: A }',
  'on_store_error: deny',
  'reservation_lease_seconds: 30',
];

function load(lines: string[]) {
  const file = join(dir, 'config.yaml');
  const text = `${lines.join('\n')}\n`;
  writeFileSync(file, text);
  return { config: loadConfigFile(file, { env }), text };
}

describe('restart-only settings of the PostgreSQL store', () => {
  const running = load(base).config;
  it.each([
    ['database_url', 'database_url: { env: B }', 4],
    ['on_store_error', 'on_store_error: allow', 5],
    ['reservation_lease_seconds', 'reservation_lease_seconds: 5', 6],
  ])('%s changed: refused at its line, saying a restart is needed', (path, line, lineNumber) => {
    const next = load(base.map((l) => (l.startsWith(`${path}:`) ? line : l)));
    const problems = restartProblems(running, next.config, next.text);
    expect(problems).toEqual([expect.objectContaining({ path, line: lineNumber, message: expect.stringMatching(/^changed, which needs a restart/) })]);
    expect(JSON.stringify(problems)).not.toContain('pa55');
  });
  it('the same settings again: nothing to refuse', () => {
    const same = load(base);
    expect(restartProblems(running, same.config, same.text)).toEqual([]);
  });
});
