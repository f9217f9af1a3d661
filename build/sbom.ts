// A CycloneDX 1.6 SBOM (JSON) of what the executables are built from, read from package-lock.json
// alone: every production package (the lockfile's entries not marked dev) with its purl, version,
// license, integrity hash and download URL, the dependency graph npm resolved, and the Node.js
// runtime the single executable carries. No node_modules and no network needed (ARCHITECTURE.md,
// "Releases", says why this is written here rather than taken from a generator package).
import { randomUUID } from 'node:crypto';

interface LockEntry {
  readonly version?: string;
  readonly resolved?: string;
  readonly integrity?: string;
  readonly license?: string;
  readonly dev?: boolean;
  readonly link?: boolean;
  readonly dependencies?: Record<string, string>;
  readonly optionalDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}

export interface Lockfile {
  readonly lockfileVersion: number;
  readonly packages: Record<string, LockEntry>;
}

export interface BomSubject {
  readonly name: string;
  readonly version: string;
  readonly license: string;
  /** The Node.js version inside the executables. */
  readonly nodeVersion: string;
  /** ISO 8601; the release's commit time keeps the file the same for the same commit. */
  readonly timestamp: string;
}

const NODE_MODULES = 'node_modules/';
const HASH_ALGORITHMS: Record<string, string> = { sha512: 'SHA-512', sha384: 'SHA-384', sha256: 'SHA-256', sha1: 'SHA-1' };

/** `node_modules/a/node_modules/@s/b` → `@s/b` */
const packageName = (path: string) => path.slice(path.lastIndexOf(NODE_MODULES) + NODE_MODULES.length);

/** purl for an npm package: the scope's @ is percent-encoded (purl spec, npm type). */
export function npmPurl(name: string, version: string): string {
  const slash = name.startsWith('@') ? name.indexOf('/') : -1;
  const encoded = slash === -1 ? encodeURIComponent(name) : `${encodeURIComponent(name.slice(0, slash))}/${encodeURIComponent(name.slice(slash + 1))}`;
  return `pkg:npm/${encoded}@${encodeURIComponent(version)}`;
}

/** Where Node would find `name` when required from the package at `from` (nearest node_modules up). */
function resolveFrom(packages: Lockfile['packages'], from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = base === '' ? `${NODE_MODULES}${name}` : `${base}/${NODE_MODULES}${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (base === '') return undefined;
    const cut = base.lastIndexOf(`/${NODE_MODULES}`);
    base = cut === -1 ? '' : base.slice(0, cut);
  }
}

function hashesOf(integrity: string | undefined): { alg: string; content: string }[] | undefined {
  if (integrity === undefined) return undefined;
  const hashes = integrity.split(/\s+/).flatMap((entry) => {
    const dash = entry.indexOf('-');
    const alg = HASH_ALGORITHMS[entry.slice(0, dash)];
    return alg === undefined ? [] : [{ alg, content: Buffer.from(entry.slice(dash + 1), 'base64').toString('hex') }];
  });
  return hashes.length > 0 ? hashes : undefined;
}

/** An SPDX expression goes in `expression`; anything else ("SEE LICENSE IN ...") as a name. */
function licensesOf(license: string | undefined): object[] | undefined {
  if (license === undefined) return undefined;
  return /^[A-Za-z0-9.+\-() ]+$/.test(license) ? [{ expression: license }] : [{ license: { name: license } }];
}

export function cyclonedxBom(lock: Lockfile, subject: BomSubject): Record<string, unknown> {
  if (lock.lockfileVersion < 2) throw new Error(`package-lock.json version ${lock.lockfileVersion}: need 2 or 3 (npm 7+), which list every package by path`);
  const packages = lock.packages;
  const rootRef = `pkg:generic/${encodeURIComponent(subject.name)}@${encodeURIComponent(subject.version)}`;
  const nodeRef = `pkg:github/nodejs/node@v${subject.nodeVersion}`;

  // Production packages by lockfile path; one component per purl (the same name@version may sit at two paths).
  const refOfPath = new Map<string, string>();
  const components = new Map<string, Record<string, unknown>>();
  for (const [path, entry] of Object.entries(packages)) {
    if (!path.includes(NODE_MODULES) || entry.dev === true || entry.link === true || entry.version === undefined) continue;
    const name = packageName(path);
    const purl = npmPurl(name, entry.version);
    refOfPath.set(path, purl);
    if (components.has(purl)) continue;
    const scoped = name.startsWith('@');
    components.set(purl, {
      type: 'library',
      'bom-ref': purl,
      ...(scoped ? { group: name.slice(0, name.indexOf('/')), name: name.slice(name.indexOf('/') + 1) } : { name }),
      version: entry.version,
      scope: 'required',
      purl,
      ...(hashesOf(entry.integrity) && { hashes: hashesOf(entry.integrity) }),
      ...(licensesOf(entry.license) && { licenses: licensesOf(entry.license) }),
      ...(entry.resolved && { externalReferences: [{ type: 'distribution', url: entry.resolved }] }),
    });
  }

  // The graph: each package's (and the root's) dependencies as npm resolved them.
  const dependsOf = new Map<string, Set<string>>();
  const edge = (from: string, to: string) => {
    let set = dependsOf.get(from);
    if (set === undefined) dependsOf.set(from, (set = new Set()));
    set.add(to);
  };
  edge(rootRef, nodeRef);
  for (const path of ['', ...refOfPath.keys()]) {
    const entry = packages[path]!;
    const from = path === '' ? rootRef : refOfPath.get(path)!;
    for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies })) {
      const target = resolveFrom(packages, path, name);
      const ref = target === undefined ? undefined : refOfPath.get(target);
      if (ref !== undefined && ref !== from) edge(from, ref); // absent: an optional one not installed, or dev-only
    }
  }
  const allRefs = [rootRef, nodeRef, ...components.keys()];

  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: `urn:uuid:${randomUUID()}`,
    version: 1,
    metadata: {
      timestamp: subject.timestamp,
      lifecycles: [{ phase: 'build' }],
      tools: { components: [{ type: 'application', name: 'gateway build/sbom.ts', version: subject.version }] },
      component: {
        type: 'application',
        'bom-ref': rootRef,
        name: subject.name,
        version: subject.version,
        purl: rootRef,
        licenses: licensesOf(subject.license),
      },
    },
    components: [
      {
        type: 'platform',
        'bom-ref': nodeRef,
        name: 'node',
        version: subject.nodeVersion,
        description: 'The Node.js runtime inside the single executables (Node single executable application)',
        purl: nodeRef,
      },
      ...[...components.values()].sort((a, b) => String(a.purl).localeCompare(String(b.purl))),
    ],
    dependencies: allRefs.map((ref) => ({ ref, dependsOn: [...(dependsOf.get(ref) ?? [])].sort() })),
  };
}
