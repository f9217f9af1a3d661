// A gateway started from a config file in a directory of its own, loaded as `gateway --config`
// loads it (the environment given here is the one its reloads see too), in front of the mock
// upstream: for the tests that change the configuration through the admin API and the CLI.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type RunningGateway } from '../../server/app/start-gateway.ts';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { createLogger } from '../../server/shared/logger.ts';
import type { MockUpstream } from './mock-upstream.ts';

export const CONFIG_ADMIN_TOKEN = 'config-admin-token-7f3a9c';
export const CONFIG_UPSTREAM_KEY = 'sk-config-test-upstream-key-41d2';

/** The configuration every test starts from: one OpenAI-protocol model on the mock upstream. */
export function baseConfigYaml(extra = ''): string {
  return `# gateway under test
listen: 127.0.0.1:0
admin_listen: 127.0.0.1:0
catalog: ./providers.yaml
log_level: silent
admin_token: { env: CONFIG_ADMIN_TOKEN }
providers:
  openai: { api_key: { env: CONFIG_UPSTREAM_KEY } }
models:
  gpt: { provider: openai, model: gpt-4.1-mini }
${extra}`;
}

/** The files of a config directory: providers.yaml pointing at the upstream, and config.yaml. */
export function writeConfigDir(dir: string, upstream: MockUpstream, configYaml: string): string {
  writeFileSync(join(dir, 'providers.yaml'), `openai: { base_url: ${upstream.url}/v1 }\n`);
  const file = join(dir, 'config.yaml');
  writeFileSync(file, configYaml);
  return file;
}

export interface ConfigGateway {
  readonly gateway: RunningGateway;
  readonly file: string;
  readonly dir: string;
  /** An admin API call with the token; a string body goes as application/yaml, an object as JSON. */
  admin(method: string, path: string, body?: string | object, contentType?: string): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

export async function startConfigGateway(options: {
  upstream: MockUpstream;
  yaml?: string;
  dir?: string;
  env?: Record<string, string>;
  workers?: number;
}): Promise<ConfigGateway> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'gateway-config-'));
  const file = options.dir !== undefined ? join(dir, 'config.yaml') : writeConfigDir(dir, options.upstream, options.yaml ?? baseConfigYaml());
  const env = { CONFIG_ADMIN_TOKEN, CONFIG_UPSTREAM_KEY, ...options.env };
  const gateway = await startGateway(loadConfigFile(file, { env }), {
    log: createLogger('silent'),
    validateAdminResponses: true,
    workers: options.workers ?? 1,
    loadOptions: { env },
  });
  return {
    gateway,
    file,
    dir,
    async admin(method, path, body, contentType) {
      const headers: Record<string, string> = { 'x-admin-token': CONFIG_ADMIN_TOKEN };
      if (body !== undefined) headers['content-type'] = contentType ?? (typeof body === 'string' ? 'application/yaml' : 'application/json');
      const response = await fetch(`${gateway.adminUrl}${path}`, {
        method,
        headers,
        ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      return { status: response.status, json: await response.json() };
    },
    close: async () => {
      await gateway.close();
    },
  };
}
