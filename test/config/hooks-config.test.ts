// `hooks:` in config.yaml: defaults, secrets in headers and URLs, each kind's own keys, and the
// file:line:col problems the rest of the loader gives.
import { describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { configError, tempDir } from './config-fixtures.ts';

const AUDIT_TOKEN = 'audit-token-s3cret';
const SLACK_URL = 'https://hooks.example.com/services/T000/B000/XXXXSECRETXXXX';

describe('hooks: in config.yaml', () => {
  it('resolves a webhook and a gate with defaults, secret headers read and URLs masked for display', () => {
    const dir = tempDir();
    dir.write('gate.key', 'gate-key-s3cret\n');
    const file = dir.write('config.yaml', [
      'hooks:',
      '  - name: audit',
      '    kind: webhook',
      '    url: https://user:p%20w@audit.example.com/events?token=abc&team=x',
      '    headers: { x-team: platform }',
      '  - name: policy',
      '    kind: gate',
      '    url: http://127.0.0.1:9000/check',
      '    headers: { x-api-key: { file: ./gate.key } }',
      '    on_error: deny',
      '    include_content: true',
      '  - { name: slack, kind: webhook, url: { env: SLACK_URL }, events: [request.failed], queue_size: 10, concurrency: 1, max_retries: 0, backoff: { initial_ms: 10, max_ms: 20 }, timeout_ms: 250 }',
    ]);
    const config = loadConfigFile(file, { env: { AUDIT_TOKEN, SLACK_URL } });
    expect(config.hooks).toEqual(
      [
        {
          kind: 'webhook',
          name: 'audit',
          url: 'https://audit.example.com/events?token=abc&team=x',
          target: 'https://***@audit.example.com/events?token=***&team=***',
          headers: { authorization: 'Basic dXNlcjpwIHc=', 'x-team': 'platform' },
          timeoutMs: 5000,
          events: ['request.completed', 'request.failed'],
          queueSize: 10_000,
          concurrency: 4,
          maxRetries: 5,
          backoff: { initialMs: 500, maxMs: 30_000 },
        },
        {
          kind: 'gate',
          name: 'policy',
          url: 'http://127.0.0.1:9000/check',
          target: 'http://127.0.0.1:9000/check',
          headers: { 'x-api-key': 'gate-key-s3cret' },
          timeoutMs: 1000,
          onError: 'deny',
          includeContent: true,
        },
        {
          kind: 'webhook',
          name: 'slack',
          url: SLACK_URL,
          target: 'https://hooks.example.com/***',
          headers: {},
          timeoutMs: 250,
          events: ['request.failed'],
          queueSize: 10,
          concurrency: 1,
          maxRetries: 0,
          backoff: { initialMs: 10, max_ms: undefined, maxMs: 20 },
        },
      ].map((h) => JSON.parse(JSON.stringify(h)) as unknown),
    );
  });

  it('no hooks: an empty list', () => {
    expect(loadConfigFile(tempDir().write('config.yaml', 'models: {}\n'), { env: {} }).hooks).toEqual([]);
  });

  it('reports each problem at its line: kind-only keys, a gate without on_error, duplicate names, bad URL, missing secret', () => {
    const dir = tempDir();
    const file = dir.write('config.yaml', [
      'hooks:',
      '  - { name: g, kind: gate, url: "http://x.test/", queue_size: 5 }',
      '  - { name: w, kind: webhook, url: "http://x.test/", on_error: allow, include_content: true, backoff: { initial_ms: 50, max_ms: 10 } }',
      '  - { name: w, kind: webhook, url: "http://exa mple/" }',
      '  - { name: u, kind: webhook, url: "http://a:b@x.test/", headers: { Authorization: "Bearer t" } }',
      '  - { name: s, kind: webhook, url: { env: MISSING_URL }, headers: { authorization: { env: MISSING_TOKEN }, content-length: "5" } }',
    ]);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.message.split('\n')).toEqual([
      `${file}:2:63: hooks.0.queue_size: only a webhook hook has queue_size; "g" is a gate`,
      `${file}:2:5: hooks.0: gate hook "g" needs on_error: allow (fail open: requests go on when the gate cannot answer) or deny (fail closed: they get 403)`,
      `${file}:3:64: hooks.1.on_error: only a gate hook has on_error; "w" is a webhook, whose failed deliveries are retried and counted`,
      `${file}:3:88: hooks.1.include_content: webhook events carry metadata only (never prompt or completion text); include_content is for gate hooks`,
      `${file}:3:94: hooks.1.backoff: initial_ms (50) is more than max_ms (10)`,
      `${file}:4:13: hooks.2.name: another hook is named "w" already; hook names are unique`,
      `${file}:4:36: hooks.2.url: "http://exa mple/" is not a valid URL`,
      `${file}:5:36: hooks.3.url: the URL has a user name or password and headers has an authorization: keep one of them`,
      `${file}:6:31: hooks.4.url: environment variable MISSING_URL is not set`,
      `${file}:6:69: hooks.4.headers.authorization: environment variable MISSING_TOKEN is not set`,
      `${file}:6:124: hooks.4.headers.content-length: content-length is set by the gateway for each call`,
    ]);
  });

  it('schema problems: an unknown kind, a missing url, a non-http URL, an unknown key', () => {
    const file = tempDir().write('config.yaml', [
      'hooks:',
      '  - { name: a, kind: email, url: "http://x.test/" }',
      '  - { name: b, kind: gate, on_error: deny }',
      '  - { name: c, kind: webhook, url: "ftp://x.test/" }',
      '  - { name: d, kind: webhook, url: "http://x.test/", retries: 3 }',
    ]);
    const error = configError(() => loadConfigFile(file, { env: {} }));
    expect(error.message.split('\n')).toEqual([
      `${file}:2:22: hooks.0.kind: must be one of: webhook, gate`,
      `${file}:3:5: hooks.1: missing required key "url"`,
      `${file}:4:36: hooks.2.url: must match pattern "^https?://", or must be object`,
      `${file}:5:54: hooks.3.retries: unknown key (check the spelling; see spec/config.schema.json and spec/catalog.schema.json)`,
    ]);
  });

  it('never repeats a secret URL in a problem', () => {
    const file = tempDir().write('config.yaml', ['hooks:', '  - { name: s, kind: webhook, url: { env: HOOK_URL } }']);
    const error = configError(() => loadConfigFile(file, { env: { HOOK_URL: 'not a url s3cret' } }));
    expect(error.message).toBe(`${file}:2:31: hooks.0.url: the URL read from this secret is not a valid URL`);
    expect(error.message).not.toContain('s3cret');
  });
});
