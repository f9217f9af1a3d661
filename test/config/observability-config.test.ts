// metrics: and otlp: in config.yaml: defaults, secret references in OTLP headers, and refusals.
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { configError, tempDir } from './config-fixtures.ts';

describe('metrics and otlp configuration', () => {
  it('defaults: metrics on, no OTLP export', () => {
    const config = loadConfigFile(tempDir().write('config.yaml', ['log_level: info']), { env: {} });
    expect(config.metrics).toEqual({ enabled: true, requireKey: false });
    expect(config.otlp).toBeUndefined();
  });

  it('otlp: endpoint without trailing slash, headers with secrets read, content capture off by default', () => {
    const dir = tempDir();
    dir.write('otlp-token', 'file-secret-123\n');
    const file = dir.write('config.yaml', [
      'metrics: { enabled: false }',
      'otlp:',
      '  endpoint: https://collector.example:4318/',
      '  headers: { authorization: { env: OTLP_AUTH }, x-key: { file: ./otlp-token }, x-tenant: team-a }',
    ]);
    const config = loadConfigFile(file, { env: { OTLP_AUTH: 'Bearer env-secret' } });
    expect(config.metrics.enabled).toBe(false);
    expect(config.otlp).toEqual({
      endpoint: 'https://collector.example:4318',
      headers: { authorization: 'Bearer env-secret', 'x-key': 'file-secret-123', 'x-tenant': 'team-a' },
      captureContent: false,
      serviceName: 'gateway',
      traces: true,
      metrics: true,
      metricsIntervalMs: 60_000,
      maxQueueSize: 2048,
      timeoutMs: 10_000,
    });
  });

  it('refuses a missing header secret (naming the variable, not a value), an endpoint that is not a URL, an unknown key', () => {
    const file = tempDir().write('config.yaml', ['otlp: { endpoint: http://c:4318, headers: { authorization: { env: OTLP_MISSING } } }']);
    expect(configError(() => loadConfigFile(file, { env: {} })).message).toBe(
      `${file}:1:45: otlp.headers.authorization: environment variable OTLP_MISSING is not set`,
    );
    const notUrl = tempDir().write('config.yaml', ['otlp: { endpoint: collector:4318 }']);
    expect(configError(() => loadConfigFile(notUrl, { env: {} })).message).toContain('otlp.endpoint');
    const typo = tempDir().write('config.yaml', ['otlp: { endpoint: http://c:4318, capture_contents: true }']);
    expect(configError(() => loadConfigFile(typo, { env: {} })).message).toContain('otlp.capture_contents: unknown key');
  });
});
