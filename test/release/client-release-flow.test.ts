// The client release flow the READMEs document, run as a maintainer would on a fresh clone: clone,
// `make release-client CLIENT=go|ts|py`, push the tags (to a bare repository standing in for the
// remote). The Go tag must name the module path in clients-go/go.mod the way the Go tool maps
// tags of a subfolder module, and the install lines in the client READMEs must name the version
// being released.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const CLIENTS = ['go', 'ts', 'py'] as const;

let dir: string;
let clone: string;
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
/** `git tag -a` needs a tagger; CI's machine may have no git identity configured. */
const makeEnv = { ...process.env, GIT_COMMITTER_NAME: 'release test', GIT_COMMITTER_EMAIL: 'release-test@localhost' };
const versionOf = (client: string) => readFileSync(join(clone, `clients-${client}/VERSION`), 'utf8').trim();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-client-release-'));
  // The committed state, without the tags already made here: the next release as it would happen.
  git(dir, 'clone', '--quiet', '--bare', '--no-tags', ROOT, 'origin.git');
  git(dir, 'clone', '--quiet', join(dir, 'origin.git'), 'work');
  clone = join(dir, 'work');
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('client release flow on a fresh clone', { timeout: 60_000 }, () => {
  it('starts from a clean tree (a release is refused otherwise)', () => {
    expect(git(clone, 'status', '--porcelain')).toBe('');
  });

  it.each(CLIENTS)('make release-client CLIENT=%s tags clients-<client>/vX.Y.Z from VERSION, and the tag pushes', (client) => {
    const tag = `clients-${client}/v${versionOf(client)}`;
    const out = execFileSync('make', ['--no-print-directory', 'release-client', `CLIENT=${client}`], { cwd: clone, encoding: 'utf8', env: makeEnv });
    expect(out).toContain(`tagged ${tag} (push it with: git push origin ${tag})`);
    expect(git(clone, 'tag', '--list', tag).trim()).toBe(tag);
    git(clone, 'push', '--quiet', 'origin', tag);
    expect(git(join(dir, 'origin.git'), 'tag', '--list', tag).trim()).toBe(tag);
    // A second time is refused, not a moved tag.
    let refusal = '';
    try {
      execFileSync('make', ['--no-print-directory', 'release-client', `CLIENT=${client}`], { cwd: clone, encoding: 'utf8', stdio: 'pipe', env: makeEnv });
    } catch (e) {
      refusal = String((e as { stdout?: string }).stdout);
    }
    expect(refusal).toContain(`${tag} exists already`);
  });

  it('maps the Go tag to the module: go.mod at the tag is github.com/<repo>/clients-go, major version in the path when >= 2', () => {
    const version = versionOf('go');
    const tag = `clients-go/v${version}`;
    const goMod = git(clone, 'show', `${tag}:clients-go/go.mod`);
    const module = /^module (\S+)$/m.exec(goMod)?.[1];
    // A module in a subfolder is released by tags prefixed with that folder; its path ends with it.
    const major = Number(version.split('.')[0]);
    expect(module).toBe(major >= 2 ? `github.com/gateway/gateway/clients-go/v${major}` : 'github.com/gateway/gateway/clients-go');
    expect(/^\d+\.\d+\.\d+$/.test(version)).toBe(true);
    const readme = readFileSync(join(clone, 'clients-go/README.md'), 'utf8');
    expect(readme).toContain(`go get ${module}@v${version}`);
    expect(readFileSync(join(clone, 'clients-go/CHANGELOG.md'), 'utf8')).toContain(`## ${version}`);
  });

  it('documents installs of the versions being released (TypeScript tag checkout, Python tag)', () => {
    const ts = versionOf('ts');
    expect(JSON.parse(readFileSync(join(clone, 'clients-ts/package.json'), 'utf8')).version).toBe(ts);
    const tsReadme = readFileSync(join(clone, 'clients-ts/README.md'), 'utf8');
    expect(tsReadme).toContain(`git checkout clients-ts/v${ts}`);
    expect(tsReadme).toContain(`gateway-admin-client-${ts}.tgz`);
    expect(readFileSync(join(clone, 'clients-py/pyproject.toml'), 'utf8')).toMatch(new RegExp(`^version = "${versionOf('py').replaceAll('.', '\\.')}"$`, 'm'));
  });
});
