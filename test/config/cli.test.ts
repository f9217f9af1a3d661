// The real CLI (`server/main.ts`) in a child process: exit codes, output, and a real server that
// starts on ephemeral ports, answers, and stops cleanly on SIGTERM.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseConfigFile } from '../../server/config/load-config.ts';
import { tempDir } from './config-fixtures.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');
const MAIN = join(ROOT, 'server/main.ts');
const PACKAGE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

const DEMO_CONFIG = [
  'listen: 127.0.0.1:0',
  'admin_listen: 127.0.0.1:0',
  'log_level: info',
  'models:',
  '  demo: { provider: demo, model: demo-echo }',
  '  demo-claude: { provider: demo-anthropic, model: demo-echo }',
  'pools:',
  '  both: { members: [ { model: demo }, { model: demo-claude } ] }',
];

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion; a non-zero exit is a result, not an exception. */
async function gateway(args: string[], env: Record<string, string> = {}): Promise<Run> {
  try {
    const { stdout, stderr } = await promisify(execFile)(NODE, [MAIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 15_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('gateway --validate', () => {
  it('accepts a good config: exit 0 and OK', async () => {
    const file = tempDir().write('config.yaml', DEMO_CONFIG);
    const run = await gateway(['--validate', file]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^${file.replace(/[.]/g, '\\.')}: OK \\(2 models, 1 pools, cfg_[0-9a-f]{16}\\)\\n$`));
    expect(run.stderr).toBe('');
  });

  it('reads secrets from the environment it is given', async () => {
    const dir = tempDir();
    const file = dir.write('config.yaml', [
      'providers:',
      '  openai: { api_key: { env: OPENAI_API_KEY } }',
      'models:',
      '  gpt: { provider: openai, model: gpt-4.1-mini }',
    ]);
    expect((await gateway(['--validate', file], { OPENAI_API_KEY: 'sk-cli-secret' })).code).toBe(0);
    const missing = await gateway(['--validate', file]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`gateway: invalid configuration\n${file}:2:13: providers.openai.api_key: environment variable OPENAI_API_KEY is not set\n`);
  });

  it('refuses a bad config: exit 2, every problem with file:line:col and the path', async () => {
    const file = tempDir().write('config.yaml', ['models:', '  demo: { provider: demo }', 'governance: maybe']);
    const run = await gateway(['--validate', file]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `gateway: invalid configuration\n${file}:2:3: models.demo: missing required key "model"\n${file}:3:13: governance: must be one of: on, off, or boolean\n`,
    );
  });

  it('refuses a file that does not exist: exit 2', async () => {
    const file = join(tempDir().path, 'absent.yaml');
    const run = await gateway(['--validate', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${file}: cannot read the configuration (ENOENT)`);
  });
});

describe('gateway flags', () => {
  it('--version prints the package.json version', async () => {
    const run = await gateway(['--version']);
    expect(run, run.stderr).toEqual({ code: 0, stdout: `${PACKAGE_VERSION}\n`, stderr: '' });
  });

  it('--help prints the usage', async () => {
    const run = await gateway(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('usage: gateway [--config <file>]');
  });

  it.each([
    [['--bogus'], "Unknown option '--bogus'"],
    [['config.yaml'], "Unexpected argument 'config.yaml'"],
    [['--validate'], "Option '--validate <value>' argument missing"],
  ])('%j exits non-zero with the usage', async (args, complaint) => {
    const run = await gateway(args);
    expect(run.code, run.stderr).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(complaint);
    expect(run.stderr).toContain('usage: gateway [--config <file>]');
    expect(run.stderr).toContain('gateway --validate <file>');
  });
});

describe('gateway --config (a real server process)', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    child = undefined;
  });

  /** Spawns the server and resolves with its "gateway started" log line. */
  async function serve(file: string, env: Record<string, string> = {}) {
    const proc = spawn(NODE, [MAIN, '--config', file], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      proc.once('exit', (code, signal) => resolve({ code, signal })),
    );
    let stderr = '';
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const lines = createInterface({ input: proc.stdout });
    const logged: Record<string, unknown>[] = [];
    const started = await new Promise<Record<string, unknown>>((resolve, reject) => {
      lines.on('line', (line) => {
        const entry = JSON.parse(line) as Record<string, unknown>;
        logged.push(entry);
        if (entry.msg === 'gateway started') resolve(entry);
      });
      void exited.then(({ code }) => reject(new Error(`gateway exited (${code}) before starting: ${stderr}`)));
    });
    return { proc, started, exited, logged, stderr: () => stderr };
  }

  it('starts on ephemeral ports, serves /healthz, a demo chat and admin info, and exits 0 on SIGTERM', async () => {
    const file = tempDir().write('config.yaml', DEMO_CONFIG);
    const server = await serve(file);
    expect(server.started).toMatchObject({ source: file, adminAuth: false, configVersion: expect.stringMatching(/^cfg_[0-9a-f]{16}$/) });
    const dataUrl = server.started.dataUrl as string;
    const adminUrl = server.started.adminUrl as string;
    expect(dataUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const health = await fetch(`${dataUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });

    const chat = await fetch(`${dataUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer anything' },
      body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'hello from the cli test' }] }),
    });
    expect(chat.status).toBe(200);
    expect(chat.headers.get('x-request-id')).toMatch(/^req_/);
    const completion = (await chat.json()) as { object: string; choices: { message: { role: string; content: string } }[] };
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message.role).toBe('assistant');
    expect(completion.choices[0]?.message.content).toContain('hello from the cli test');

    // Across protocols through the built-in demo: an OpenAI client, the Anthropic-protocol demo upstream.
    const crossed = await fetch(`${dataUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo-claude', messages: [{ role: 'user', content: 'crossing over' }] }),
    });
    expect(crossed.status).toBe(200);
    expect(((await crossed.json()) as typeof completion).choices[0]?.message.content).toContain('crossing over');

    const info = await fetch(`${adminUrl}/api/v1/admin/info`);
    expect(info.status).toBe(200);
    const view = (await info.json()) as { version: string; config_version: string; build: { node: string } };
    expect(view.version).toBe(PACKAGE_VERSION);
    expect(view.config_version).toBe(server.started.configVersion);
    const childNode = (await promisify(execFile)(NODE, ['-p', 'process.versions.node'])).stdout.trim();
    expect(view.build.node).toBe(childNode);

    server.proc.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.logged.some((entry) => entry.msg === 'shutting down' && entry.signal === 'SIGTERM')).toBe(true);
    expect(server.stderr()).toBe('');
  });

  it('exits 0 on a SIGTERM sent as soon as it reports started, and never logs the upstream credential', async () => {
    const secret = 'sk-never-in-the-log-0123456789';
    const file = tempDir().write('config.yaml', [...DEMO_CONFIG, 'providers:', '  openai: { api_key: { env: OPENAI_API_KEY } }']);
    const server = await serve(file, { OPENAI_API_KEY: secret });
    server.proc.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    expect(JSON.stringify(server.logged)).not.toContain(secret);
  });

  it('refuses to start with a bad config: exit 2 and the problems on stderr', async () => {
    const file = tempDir().write('config.yaml', ['listen: 127.0.0.1:0', 'admin_listen: 0.0.0.0:0']);
    const run = await gateway(['--config', file]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`${file}:2:15: admin_listen: the admin plane would listen on 0.0.0.0, beyond loopback, with no admin token`);
  });
});

describe('chooseConfigFile', () => {
  it('takes the file given explicitly, even when ./config.yaml exists', () => {
    const dir = tempDir();
    dir.write('config.yaml', 'models: {}');
    expect(chooseConfigFile('/etc/gateway/other.yaml', dir.path)).toBe('/etc/gateway/other.yaml');
  });

  it('takes ./config.yaml when it is present', () => {
    const dir = tempDir();
    const file = dir.write('config.yaml', 'models: {}');
    expect(chooseConfigFile(undefined, dir.path)).toBe(file);
  });

  it('gives undefined (the embedded default) when there is no ./config.yaml', () => {
    expect(chooseConfigFile(undefined, tempDir().path)).toBeUndefined();
  });
});
