// make release, last step (after the executables are built): dist/sbom.cdx.json, a CycloneDX SBOM
// of what they are made of (build/sbom.ts), and dist/SHA256SUMS over the executables and the SBOM,
// in the format `sha256sum -c` checks (run it in dist/).
//   node build/release.ts [--dist DIR]
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cyclonedxBom, type Lockfile } from './sbom.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { dist: { type: 'string', default: join(ROOT, 'dist') } } });
const dist = values.dist!;

/** The executables a release holds (make binary builds both). */
const executables = ['gateway', 'gateway-admin'];

const missing = executables.filter((name) => !existsSync(join(dist, name)) || (statSync(join(dist, name)).mode & 0o111) === 0);
if (missing.length > 0) {
  console.error(`release: ${missing.map((m) => join(dist, m)).join(', ')} missing or not executable: build first (make release does)`);
  process.exit(1);
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  license: string;
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lockfile;

// The commit's time, so one commit gives one SBOM timestamp; outside git, now.
let timestamp = new Date().toISOString();
try {
  timestamp = new Date(
    execFileSync('git', ['log', '-1', '--format=%cI'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
  ).toISOString();
} catch {
  // not a git checkout
}

const bom = cyclonedxBom(lock, { name: pkg.name, version: pkg.version, license: pkg.license, nodeVersion: pkg.devDependencies.node!, timestamp });
writeAtomically(join(dist, 'sbom.cdx.json'), `${JSON.stringify(bom, null, 2)}\n`);

const files = [...executables, 'sbom.cdx.json'];
const sums = files.map(
  (name) =>
    `${createHash('sha256')
      .update(readFileSync(join(dist, name)))
      .digest('hex')}  ${name}`,
);
writeAtomically(join(dist, 'SHA256SUMS'), `${sums.join('\n')}\n`);

const components = (bom.components as unknown[]).length;
console.log(`release ${pkg.version}: ${files.map((f) => join(dist, f)).join(', ')}`);
console.log(`sbom     CycloneDX ${String(bom.specVersion)}, ${components} components`);
console.log(`sums     ${join(dist, 'SHA256SUMS')}\n${sums.map((s) => `  ${s}`).join('\n')}`);

function writeAtomically(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}
