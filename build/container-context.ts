// make image (first step): the build context of deploy/container/Containerfile, an image FROM scratch
// holding dist/gateway and nothing else but what it needs at run time:
//   gateway   the single executable (build/build-binary.ts)
//   rootfs/   the shared libraries it links (as `ldd` names them: libc, libstdc++, libm, libgcc_s,
//             the dynamic loader), /etc/passwd and /etc/group with the unprivileged user, the
//             nsswitch.conf glibc reads for name lookups, Debian's CA bundle (for
//             NODE_USE_SYSTEM_CA=1 or an operator's own trust), an empty /etc/gateway, and /tmp
//   state/    an empty directory: /var/lib/gateway, the embedded store's home, owned by the user
// No shell, no package manager, no tzdata (the gateway logs in UTC; Node carries its own ICU data).
// Usage: node build/container-context.ts [output-dir, default dist/container-context]
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BINARY = join(ROOT, 'dist/gateway');
/** The image's user; numeric in the Containerfile so Kubernetes' runAsNonRoot can check it. */
export const IMAGE_UID = 10001;
/** Debian's ca-certificates bundle; the package is in scripts/system-packages.sh. */
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

const output = resolve(process.argv[2] ?? join(ROOT, 'dist/container-context'));
if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: build it first (node build/build-binary.ts)`);
if (!existsSync(CA_BUNDLE)) throw new Error(`${CA_BUNDLE} is missing: apt-get install ca-certificates`);

rmSync(output, { recursive: true, force: true });
const rootfs = join(output, 'rootfs');
mkdirSync(rootfs, { recursive: true });

// The executable: a hard link when the context is on the same file system (130 MB not copied).
try {
  linkSync(BINARY, join(output, 'gateway'));
} catch {
  copyFileSync(BINARY, join(output, 'gateway'));
}
chmodSync(join(output, 'gateway'), 0o755);

// Shared libraries, at the paths the executable and the loader look for them.
const libraries = linkedLibraries(BINARY);
for (const library of libraries) place(library, library);

write('etc/passwd', `root:x:0:0:root:/root:/sbin/nologin\ngateway:x:${IMAGE_UID}:${IMAGE_UID}:gateway:/var/lib/gateway:/sbin/nologin\n`);
write('etc/group', `root:x:0:\ngateway:x:${IMAGE_UID}:\n`);
write('etc/nsswitch.conf', 'passwd: files\ngroup: files\nhosts: files dns\n'); // /etc/hosts and resolv.conf come from the container engine
place(CA_BUNDLE, CA_BUNDLE);
mkdirSync(join(rootfs, 'etc/gateway'), { recursive: true }); // config.yaml is mounted here
mkdirSync(join(rootfs, 'var/lib'), { recursive: true }); // root's; only var/lib/gateway is the user's
mkdirSync(join(rootfs, 'tmp'));
chmodSync(join(rootfs, 'tmp'), 0o1777);
mkdirSync(join(output, 'state'));
chmodSync(join(output, 'state'), 0o700);

console.log(`container context ${output}: gateway, ${libraries.length} shared libraries (${libraries.join(', ')}), passwd, CA bundle`);

/** Every file `ldd` resolves for the executable, the dynamic loader included (not the vDSO). */
function linkedLibraries(file: string): string[] {
  const listing = execFileSync('ldd', [file], { encoding: 'utf8' });
  const paths: string[] = [];
  for (const line of listing.split('\n')) {
    // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or "/lib64/ld-linux-x86-64.so.2 (0x...)"
    const match = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line);
    if (match?.[1] !== undefined) paths.push(match[1]);
    else if (line.includes('not found')) throw new Error(`ldd ${file}: ${line.trim()}`);
  }
  if (!paths.some((path) => /\/ld-linux[^/]*\.so/.test(path) || /\/ld-musl/.test(path))) throw new Error(`ldd ${file} named no dynamic loader:\n${listing}`);
  return paths;
}

/** Copies a host file into rootfs at `at`, following symbolic links (the image holds the file itself). */
function place(from: string, at: string): void {
  if (!isAbsolute(at)) throw new Error(`not an absolute path: ${at}`);
  const target = join(rootfs, at);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(from, target);
}

function write(at: string, text: string): void {
  mkdirSync(dirname(join(rootfs, at)), { recursive: true });
  writeFileSync(join(rootfs, at), text);
}
