// The steps every single executable of this repository is built with (build-binary.ts: dist/gateway,
// build-cli.ts: dist/gateway-admin), on Node's single executable application support (SEA) and the
// project's own Node 24:
//   1. bundle   the entry point and its dependencies into one CommonJS script (SEA in Node 24 runs
//               only CommonJS), JSON imports (package.json, spec/openapi.json) inlined;
//   2. blob     node --experimental-sea-config: the script, its V8 code cache, and the assets;
//   3. copy     the pinned node binary, without its debug sections (objcopy/strip, when present);
//   4. inject   the blob into the copy (postject);
//   5. chmod    and rename into place, then print the size.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST = join(ROOT, 'dist');
/** The fuse postject flips so that node looks for the injected blob (documented with SEA). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const started = performance.now();
export const elapsed = (): string => `${((performance.now() - started) / 1000).toFixed(1)} s`;
export const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The blob is tied to the exact node that made it, so that node must be the pinned one. */
export function assertPinnedNode(): void {
  const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  const pinnedNode = packageJson.devDependencies.node;
  if (process.version !== `v${pinnedNode}`) {
    throw new Error(`build with the project's node ${pinnedNode} (node_modules/.bin/node), not ${process.version} (${process.execPath})`);
  }
}

/**
 * A directory of this build's own for intermediate files (bundles, SEA config and blob), so two
 * builds at once (make binary beside the test suite) cannot mix their files. Removed when the
 * process ends well; kept, and named, when it fails.
 */
export function workDirectory(label: string): string {
  mkdirSync(DIST, { recursive: true });
  const work = mkdtempSync(join(DIST, `.sea-${label}-`));
  process.on('exit', (code) => {
    if (code === 0) rmSync(work, { recursive: true, force: true });
    else console.error(`${label}: failed; intermediate files kept in ${work}`);
  });
  return work;
}

export interface BundleOptions {
  format: 'cjs' | 'esm';
  /** Warnings from these modules are expected and dropped (by log code and module path). */
  expected?: (code: string | undefined, id: string) => boolean;
  /** Written first in the output (a #! line for a script run directly). */
  banner?: string;
}

/** Step 1: `input` (relative to the repository) and everything it imports, but node builtins, into `file`. */
export async function bundle(input: string, file: string, options: BundleOptions): Promise<void> {
  const warnings: string[] = [];
  await build({
    cwd: ROOT,
    input: join(ROOT, input),
    platform: 'node', // node builtins stay imports; everything else is bundled
    logLevel: 'warn',
    onLog(level, log) {
      if (options.expected?.(log.code, log.id ?? log.message) === true) return;
      warnings.push(`${level}: ${log.code ?? ''} ${log.message.split('\n')[0] ?? ''}`);
    },
    output: {
      file,
      format: options.format,
      codeSplitting: false,
      sourcemap: false,
      // Not minified (names, lines and stack traces stay readable), but written in ASCII only, with
      // no JSDoc: V8 keeps each script's source for as long as its code lives, one byte a character
      // if every character fits in Latin-1, two bytes otherwise, and one em dash in a comment made
      // the whole 7 MB gateway script (and each worker thread's 4 MB) take two bytes a character.
      // Escaping changes no string's value; only an astral character in a regular expression would
      // change its `source`.
      minify: { compress: false, mangle: false, codegen: { removeWhitespace: false, asciiOnly: true } },
      comments: { legal: true, annotation: true, jsdoc: false },
    },
  });
  if (warnings.length > 0) throw new Error(`the ${input} bundle has warnings:\n${warnings.join('\n')}`);
  // The entry's own #! line goes: a CommonJS script compiled as a function body may not start with
  // one, and an ES module gets the banner's instead.
  const bundled = `${options.banner ?? ''}${asciiComments(readFileSync(file, 'utf8').replace(/^#![^\n]*\n/, ''), input)}`;
  writeFileSync(file, bundled);
  console.log(`bundle   ${basename(file)} ${mb(Buffer.byteLength(bundled))} (${elapsed()})`);
}

/**
 * The bundle with the characters past ASCII that `asciiOnly` leaves (it escapes code, not comments:
 * a license comment names "Jimmy W\u{e4}rting") written as escapes. Node decodes a UTF-8 asset that is not
 * all ASCII into a string of two bytes a character, so that one letter made every data-plane
 * worker hold its 3.8 MB script (getAsset('worker.cjs', 'utf8')) as 7.6 MB. Anywhere but a comment
 * such a character is a bundling fault, and the build stops.
 */
export function asciiComments(code: string, input: string): string {
  return code.replace(/[^\x00-\x7f]/gu, (char, at: number) => {
    const block = code.lastIndexOf('/*', at);
    const inBlock = block !== -1 && code.indexOf('*/', block + 2) > at;
    const inLine = code.lastIndexOf('//', at) > code.lastIndexOf('\n', at);
    if (!inBlock && !inLine) throw new Error(`the ${input} bundle has ${JSON.stringify(char)} outside a comment at ${at}`);
    return `\\u{${char.codePointAt(0)!.toString(16)}}`;
  });
}

export interface ExecutableOptions {
  /** From workDirectory(); the main script and the assets are files in it. */
  work: string;
  /** The CommonJS bundle the executable runs (a file name in `work`). */
  main: string;
  /** Asset name (what the code asks node:sea's getAsset for) -> file. */
  assets: Record<string, string>;
  output: string;
  /** Node flags the executable starts with (SEA `execArgv`), as `node <flags> script` would. */
  execArgv?: readonly string[];
}

/** Steps 2 to 5: the blob, a copy of node, the injection, and the executable in place at once. */
export function makeExecutable({ work, main, assets, output, execArgv }: ExecutableOptions): void {
  const name = basename(output);
  const blobFile = join(work, `${name}.blob`);
  const seaConfig = join(work, `${name}.sea-config.json`);
  // Paths relative to `work` (where node runs): the blob records the main script's name, and an
  // absolute one would put this checkout's path into the executable.
  writeFileSync(
    seaConfig,
    `${JSON.stringify(
      {
        main,
        output: basename(blobFile),
        disableExperimentalSEAWarning: true,
        useSnapshot: false,
        useCodeCache: true, // compiled at build time: a faster start
        ...(execArgv !== undefined && { execArgv }),
        assets,
      },
      null,
      2,
    )}\n`,
  );
  // The code cache is made with the flags the executable starts with: V8 checks a cache against a
  // hash of the flags that change code (--expose-gc is one) and rejects it, with a warning on every
  // start, when they differ.
  run(work, process.execPath, [...(execArgv ?? []), '--experimental-sea-config', seaConfig]);
  console.log(`blob     ${name}: ${mb(statSync(blobFile).size)} (${elapsed()})`);

  // The pinned node; its DWARF debug sections (about 8 MB) are no use at run time. The symbol
  // table stays, so native stacks (perf, gdb) keep their names.
  const partial = join(work, `${name}.partial`);
  copyFileSync(process.execPath, partial);
  if (stripDebug(partial)) console.log(`node     ${mb(statSync(partial).size)} without debug sections (${elapsed()})`);
  else console.log(`node     ${mb(statSync(partial).size)} (objcopy/strip not found: debug sections kept)`);

  // postject's command (its library call prints the same LIEF warnings, uncatchable)
  const postject = createRequire(import.meta.url).resolve('postject/dist/cli.js');
  run(work, process.execPath, [postject, partial, 'NODE_SEA_BLOB', blobFile, '--sentinel-fuse', SEA_FUSE]);
  console.log(`inject   ${name} (${elapsed()})`);

  // In place at once: a half-written executable is never left behind.
  chmodSync(partial, 0o755);
  renameSync(partial, output);
  console.log(`built    ${output}: ${mb(statSync(output).size)} (${statSync(output).size} bytes) in ${elapsed()}`);
}

/** Runs a build step quietly; its output is shown only when it fails, or when it warns unexpectedly. */
function run(cwd: string, command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  // node reports the blob it wrote; LIEF (inside postject) warns about the unnamed note sections of node's ELF file: harmless, known.
  const stderr = (result.stderr ?? '')
    .split('\n')
    .filter((line) => line !== '' && !/^warning: Can't find string offset for section name '\.note|^Wrote single executable preparation blob/.test(line));
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}):\n${result.stdout ?? ''}${result.stderr ?? ''}`,
    );
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
