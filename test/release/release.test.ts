// make release: the Makefile builds the executables, then build/release.ts writes the CycloneDX SBOM
// and SHA256SUMS. The last step runs here on stand-in executables in a directory of the test's own
// (building the real ones is test/binary's job); the SBOM is checked against the CycloneDX 1.6 rules
// it relies on and against package-lock.json, the sums against the files.
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmPurl } from '../../build/sbom.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');
const EXECUTABLES = ['gateway', 'gateway-admin'];
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; dev?: boolean; integrity?: string; link?: boolean }>;
};
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };

type Json = Record<string, any>; // the SBOM, read loosely
let dist: string;
let bom: Json;
let output: string;

beforeAll(async () => {
  dist = mkdtempSync(join(tmpdir(), 'gateway-release-'));
  for (const name of EXECUTABLES) {
    writeFileSync(join(dist, name), `#!/bin/sh\necho ${name}\n`);
    chmodSync(join(dist, name), 0o755);
  }
  output = (await promisify(execFile)(NODE, [join(ROOT, 'build/release.ts'), '--dist', dist], { timeout: 60_000 })).stdout;
  bom = JSON.parse(readFileSync(join(dist, 'sbom.cdx.json'), 'utf8')) as Json;
}, 70_000);

afterAll(() => rmSync(dist, { recursive: true, force: true }));

describe('make release', () => {
  it('builds the executables first, then the SBOM and sums', () => {
    const commands = execFileSync('make', ['-n', '-s', 'release'], { cwd: ROOT, encoding: 'utf8' });
    const order = ['node build/build-binary.ts', 'build/build-cli.ts --executable', 'node build/release.ts'].map((c) => commands.indexOf(c));
    expect(
      order.every((i) => i >= 0),
      commands,
    ).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(output).toContain(`release ${pkg.version}`);
  });

  it('writes SHA256SUMS that match every executable and the SBOM, in sha256sum -c form', () => {
    const lines = readFileSync(join(dist, 'SHA256SUMS'), 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => l.split('  ')[1])).toEqual([...EXECUTABLES, 'sbom.cdx.json']);
    for (const line of lines) {
      const [sum, name] = line.split('  ') as [string, string];
      expect(sum).toBe(
        createHash('sha256')
          .update(readFileSync(join(dist, name)))
          .digest('hex'),
      );
    }
    let hasSha256sum = true;
    try {
      execFileSync('sha256sum', ['--version'], { stdio: 'ignore' });
    } catch {
      hasSha256sum = false;
    }
    if (hasSha256sum) expect(execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: dist, encoding: 'utf8' })).toMatch(/gateway: OK/);
  });

  it('refuses to release without the executables', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'gateway-release-empty-'));
    try {
      const run = promisify(execFile)(NODE, [join(ROOT, 'build/release.ts'), '--dist', empty], { timeout: 60_000 });
      await expect(run).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/missing or not executable: build first/) });
      expect(existsSync(join(empty, 'SHA256SUMS'))).toBe(false);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('writes a valid CycloneDX 1.6 document', () => {
    expect(bom.bomFormat).toBe('CycloneDX');
    expect(bom.specVersion).toBe('1.6');
    expect(bom.serialNumber).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Number.isInteger(bom.version) && bom.version >= 1).toBe(true);
    expect(Number.isNaN(Date.parse(bom.metadata.timestamp))).toBe(false);
    expect(bom.metadata.component).toMatchObject({ type: 'application', name: 'gateway', version: pkg.version });
    const types = new Set([
      'application',
      'framework',
      'library',
      'container',
      'platform',
      'operating-system',
      'device',
      'device-driver',
      'firmware',
      'file',
      'machine-learning-model',
      'data',
      'cryptographic-asset',
    ]);
    const refs = new Set<string>([bom.metadata.component['bom-ref']]);
    for (const c of bom.components as Json[]) {
      expect(types.has(c.type), c.name).toBe(true);
      expect(typeof c.name === 'string' && c.name.length > 0).toBe(true);
      expect(c.purl).toMatch(/^pkg:[a-z]+\/[^@\s]+@[^\s]+$/);
      expect(refs.has(c['bom-ref']), `bom-ref ${c['bom-ref']} unique`).toBe(false);
      refs.add(c['bom-ref']);
      for (const h of c.hashes ?? []) {
        expect(['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512']).toContain(h.alg);
        expect(h.content).toMatch(
          { 'SHA-1': /^[0-9a-f]{40}$/, 'SHA-256': /^[0-9a-f]{64}$/, 'SHA-384': /^[0-9a-f]{96}$/, 'SHA-512': /^[0-9a-f]{128}$/ }[h.alg as string]!,
        );
      }
      for (const l of c.licenses ?? [])
        expect(typeof l.expression === 'string' || typeof l.license?.name === 'string' || typeof l.license?.id === 'string').toBe(true);
    }
    // Every dependency edge names a component of this document.
    for (const d of bom.dependencies as Json[]) {
      expect(refs.has(d.ref), d.ref).toBe(true);
      for (const to of d.dependsOn) expect(refs.has(to), `${d.ref} -> ${to}`).toBe(true);
    }
  });

  it('lists every production package of package-lock.json with its purl and integrity hash, and no dev-only one', () => {
    const byPurl = new Map((bom.components as Json[]).map((c) => [c.purl as string, c]));
    let production = 0;
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (!path.includes('node_modules/') || entry.link || entry.version === undefined) continue;
      const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
      const purl = npmPurl(name, entry.version);
      if (entry.dev) continue;
      production++;
      const component = byPurl.get(purl);
      expect(component, `${name}@${entry.version}`).toBeDefined();
      if (entry.integrity?.startsWith('sha512-')) {
        expect(component!.hashes).toContainEqual({ alg: 'SHA-512', content: Buffer.from(entry.integrity.slice(7), 'base64').toString('hex') });
      }
    }
    expect(production).toBeGreaterThan(20);
    expect(byPurl.has(npmPurl('koa', lock.packages['node_modules/koa']!.version!))).toBe(true);
    expect(byPurl.has(npmPurl('@koa/router', lock.packages['node_modules/@koa/router']!.version!))).toBe(true);
    expect(npmPurl('@koa/router', '15.7.0')).toBe('pkg:npm/%40koa/router@15.7.0');
    // Test-only packages are not in what ships.
    expect([...byPurl.keys()].some((p) => p.startsWith('pkg:npm/vitest@'))).toBe(false);
    // The Node runtime inside the executables is.
    expect(byPurl.get(`pkg:github/nodejs/node@v${pkg.devDependencies.node}`)).toMatchObject({ type: 'platform', version: pkg.devDependencies.node });
    // The root depends on each direct production dependency.
    const root = (bom.dependencies as Json[]).find((d) => d.ref === bom.metadata.component['bom-ref'])!;
    expect(root.dependsOn).toContain(npmPurl('koa', lock.packages['node_modules/koa']!.version!));
  });
});
