// The admin CLI as an npm package (cli/package.json, `make cli-package`), as a user gets it:
// `npm pack`, then `npm install <tarball>` in an empty directory with the registry out of reach
// (the package must need nothing from it), then `gateway-admin` run through its #!/usr/bin/env node
// line by the machine's own, older Node (/usr/bin/node) against a live gateway
// (test/support/live-gateway.ts).
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');
const MACHINE_NODE = '/usr/bin/node';
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
/** Only the machine's directories: `node` there is the machine's, not the repository's. */
const MACHINE_PATH = '/usr/local/bin:/usr/bin:/bin';

let dir: string;
let packed: { filename: string; files: { path: string }[] };
let installed: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-cli-package-'));
  // npm pack runs the package's prepack (build/build-cli.ts --package) with the repository's node.
  const { stdout } = await promisify(execFile)('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: join(ROOT, 'cli'),
    env: { ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH ?? ''}` },
    timeout: 120_000,
  });
  packed = (JSON.parse(stdout.slice(stdout.indexOf('['))) as (typeof packed)[])[0]!;
  const project = join(dir, 'project');
  execFileSync('mkdir', [project]);
  writeFileSync(join(project, 'package.json'), '{ "name": "uses-gateway-admin", "private": true }\n');
  await promisify(execFile)('npm', ['install', '--offline', '--no-audit', '--no-fund', join(dir, packed.filename)], {
    cwd: project,
    env: { PATH: MACHINE_PATH, HOME: dir },
    timeout: 120_000,
  });
  installed = join(project, 'node_modules/.bin');
}, 240_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('the npm package @gateway/admin-cli', () => {
  it('packs the bundled JavaScript, its README and package.json, and nothing else (no TypeScript)', () => {
    expect(packed.files.map((f) => f.path).sort()).toEqual(['README.md', 'dist/gateway-admin.js', 'package.json']);
    const installedPackage = JSON.parse(readFileSync(join(installed, '../@gateway/admin-cli/package.json'), 'utf8')) as {
      version: string;
      bin: Record<string, string>;
      dependencies?: unknown;
    };
    expect(installedPackage.version).toBe(VERSION);
    expect(installedPackage.bin).toEqual({ 'gateway-admin': 'dist/gateway-admin.js' });
    expect(installedPackage.dependencies).toBeUndefined(); // commander and the admin client are inside the bundle
    expect(readFileSync(join(installed, 'gateway-admin'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });

  it("runs on the machine's Node 20 against a live gateway: --version, a key with only --rpm, a 404 as JSON", async () => {
    expect(existsSync(MACHINE_NODE), `${MACHINE_NODE} is the machine's own Node this test runs the package with`).toBe(true);
    const machineVersion = execFileSync(MACHINE_NODE, ['--version'], { encoding: 'utf8' }).trim();
    // The point: an older Node than the repository's 24, one that cannot run the .ts sources.
    expect(Number(/^v(\d+)/.exec(machineVersion)?.[1]), machineVersion).toBeLessThan(22);

    // The commands run inside live-gateway.ts, which gives them GATEWAY_ENDPOINT and GATEWAY_ADMIN_TOKEN.
    const script = [
      'set -u',
      'command -v node > which-node.txt',
      'gateway-admin --version > version.txt',
      'gateway-admin keys create --rpm 7 --name packed --json > created.json',
      'gateway-admin keys revoke key_00000000000000000000000000 --json 2> missing.json; echo $? > missing.code',
      'gateway-admin info --json > info.json',
    ].join('\n');
    const work = mkdtempSync(join(dir, 'run-'));
    await promisify(execFile)(NODE, [join(ROOT, 'test/support/live-gateway.ts'), '--', '/bin/sh', '-c', script], {
      cwd: work,
      env: { PATH: `${installed}:${MACHINE_PATH}`, HOME: dir },
      timeout: 60_000,
    });
    const read = (name: string) => readFileSync(join(work, name), 'utf8');
    expect(read('which-node.txt').trim()).toBe(MACHINE_NODE);
    expect(read('version.txt')).toBe(`${VERSION}\n`);
    expect(JSON.parse(read('created.json'))).toMatchObject({
      name: 'packed',
      rpm: 7,
      budget_cents: null,
      remaining_cents: null,
      secret: expect.stringMatching(/^gwk_/),
    });
    expect(read('missing.code')).toBe('1\n');
    expect(JSON.parse(read('missing.json'))).toEqual({
      error: { code: 'not_found', message: 'no key with id "key_00000000000000000000000000" (HTTP 404 not_found)', status: 404, exit_code: 1 },
    });
    expect(JSON.parse(read('info.json'))).toMatchObject({ version: VERSION });
  });
});
