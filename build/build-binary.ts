// make binary: dist/gateway, one executable with everything the gateway needs at run time (no
// node_modules, no checkout), built with Node's single executable application support (SEA) on the
// project's own Node 24:
//   1. bundle   server/main.ts and its dependencies into one CommonJS script (SEA in Node 24 runs
//               only CommonJS), and server/app/worker-entry.ts into another (worker threads), with spec/openapi.json and package.json inlined (they are imports);
//   2. blob     node --experimental-sea-config: the script, its V8 code cache, and as assets the
//               shipped catalog and the worker threads' script (server/config/catalog.ts reads it with node:sea's getAsset);
//   3. copy     the pinned node binary, without its debug sections (objcopy/strip, when present);
//   4. inject   the blob into the copy (postject);
//   5. chmod    and print the size.
// Run with the repo's Node: `node build/build-binary.ts` (what `make binary` does).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DIST = join(ROOT, 'dist');
const OUTPUT = join(DIST, 'gateway');
/** Asset name → file; the names are the ones the server asks node:sea for. */
const ASSETS = { 'catalog/providers.yaml': join(ROOT, 'catalog/providers.yaml') };
/** The fuse postject flips so that node looks for the injected blob (documented with SEA). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;

// The blob is tied to the exact node that made it, so that node must be the pinned one.
const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
const pinnedNode = packageJson.devDependencies['node'];
if (process.version !== `v${pinnedNode}`) {
  throw new Error(`build with the project's node ${pinnedNode} (node_modules/.bin/node), not ${process.version} (${process.execPath})`);
}

// Intermediate files (the bundle, the SEA config and blob) in a directory of this build's own, so
// two builds at once (make binary beside the test suite) cannot mix their files; dist/gateway
// itself is replaced by a rename, never left half-written.
mkdirSync(DIST, { recursive: true });
const WORK = mkdtempSync(join(DIST, '.sea-'));
process.on('exit', (code) => {
  if (code === 0) rmSync(WORK, { recursive: true, force: true });
  else console.error(`build-binary: failed; intermediate files kept in ${WORK}`);
});

// 1. bundle: the gateway, and the data-plane worker's own smaller script (no admin plane, config
//    loading or store: each worker thread holds only what serving needs)
const bundleFile = join(WORK, 'gateway.cjs');
const workerFile = join(WORK, 'worker.cjs');
for (const [input, file] of [['server/main.ts', bundleFile], ['server/app/worker-entry.ts', workerFile]] as const) {
  const warnings: string[] = [];
  await build({
    cwd: ROOT,
    input: join(ROOT, input),
    platform: 'node', // node builtins stay require()s; everything else is bundled
    logLevel: 'warn',
    onLog(level, log) {
      // depd (a koa dependency) builds wrappers with eval on purpose; nothing else is expected.
      if (log.code === 'EVAL' && /[\\/]depd[\\/]/.test(log.id ?? log.message)) return;
      warnings.push(`${level}: ${log.code ?? ''} ${log.message.split('\n')[0] ?? ''}`);
    },
    output: { file, format: 'cjs', codeSplitting: false, sourcemap: false, minify: false },
  });
  if (warnings.length > 0) throw new Error(`the ${input} bundle has warnings:\n${warnings.join('\n')}`);
  // A CommonJS script compiled as a function body may not start with the #! line main.ts has.
  const bundled = readFileSync(file, 'utf8').replace(/^#![^\n]*\n/, '');
  writeFileSync(file, bundled);
  console.log(`bundle   ${basename(file)} ${mb(Buffer.byteLength(bundled))} (${elapsed()})`);
}

// 2. SEA preparation blob
const blobFile = join(WORK, 'gateway.blob');
const seaConfig = join(WORK, 'sea-config.json');
// Paths relative to WORK (where node runs): the blob records the main script's name, and an
// absolute one would put this checkout's path into the executable.
writeFileSync(seaConfig, `${JSON.stringify({
  main: basename(bundleFile),
  output: basename(blobFile),
  disableExperimentalSEAWarning: true,
  useSnapshot: false,
  useCodeCache: true, // compiled at build time: a faster start
  // Data-plane worker threads evaluate the worker bundle (server/app/worker-script.ts).
  assets: { ...ASSETS, 'worker.cjs': basename(workerFile) },
}, null, 2)}\n`);
run(process.execPath, ['--experimental-sea-config', seaConfig]);
console.log(`blob     ${mb(statSync(blobFile).size)} (${elapsed()})`);

// 3. copy the pinned node; its DWARF debug sections (about 8 MB) are no use at run time. The symbol
// table stays, so native stacks (perf, gdb) keep their names.
const partial = join(WORK, 'gateway.partial');
copyFileSync(process.execPath, partial);
if (stripDebug(partial)) console.log(`node     ${mb(statSync(partial).size)} without debug sections (${elapsed()})`);
else console.log(`node     ${mb(statSync(partial).size)} (objcopy/strip not found: debug sections kept)`);

// 4. inject, with postject's command (its library call prints the same LIEF warnings, uncatchable)
const postject = createRequire(import.meta.url).resolve('postject/dist/cli.js');
run(process.execPath, [postject, partial, 'NODE_SEA_BLOB', blobFile, '--sentinel-fuse', SEA_FUSE]);
console.log(`inject   (${elapsed()})`);

// 5. chmod, then in place at once (a half-written dist/gateway is never left behind)
chmodSync(partial, 0o755);
renameSync(partial, OUTPUT);
console.log(`built    ${OUTPUT}: ${mb(statSync(OUTPUT).size)} (${statSync(OUTPUT).size} bytes) in ${elapsed()}`);

/** Runs a build step quietly; its output is shown only when it fails, or when it warns unexpectedly. */
function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd: WORK, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  // node reports the blob it wrote; LIEF (inside postject) warns about the unnamed note sections of node's ELF file: harmless, known.
  const stderr = (result.stderr ?? '').split('\n').filter((line) => line !== '' && !/^warning: Can't find string offset for section name '\.note|^Wrote single executable preparation blob/.test(line));
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}):\n${result.stdout ?? ''}${result.stderr ?? ''}`);
  if (stderr.length > 0) console.warn(stderr.join('\n'));
}

function stripDebug(file: string): boolean {
  for (const tool of ['objcopy', 'strip']) {
    try {
      execFileSync(tool, ['--strip-debug', file], { stdio: ['ignore', 'ignore', 'pipe'] });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return false;
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
