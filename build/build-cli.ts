// gateway-admin outside the checkout, two ways (both bundles of cli/gateway-admin.ts, with the
// generated admin client, commander and package.json's version inside; no dependencies to install):
//   --executable  dist/gateway-admin, a single executable built like dist/gateway (sea.ts);
//   --package     cli/dist/gateway-admin.js, the npm package's bin (cli/package.json): an ES module
//                 with a #!/usr/bin/env node line, for any Node from 20 on.
// No flag: both. Run with the repo's Node (`make cli-binary`, `make cli-package`, `make binary`).
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertPinnedNode, bundle, DIST, makeExecutable, ROOT, workDirectory } from './sea.ts';

const flags = process.argv.slice(2);
const unknown = flags.filter((flag) => flag !== '--executable' && flag !== '--package');
if (unknown.length > 0) throw new Error(`unknown flag ${unknown.join(' ')}: use --executable, --package, or neither (both)`);
const all = flags.length === 0;
const ENTRY = 'cli/gateway-admin.ts';

if (all || flags.includes('--package')) {
  // The package's version is the gateway's: `gateway-admin --version` prints package.json's.
  const rootVersion = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const cliVersion = (JSON.parse(readFileSync(join(ROOT, 'cli/package.json'), 'utf8')) as { version: string }).version;
  if (cliVersion !== rootVersion) throw new Error(`cli/package.json has version ${cliVersion} and package.json ${rootVersion}: make them equal`);
  const out = join(ROOT, 'cli/dist');
  mkdirSync(out, { recursive: true });
  const file = join(out, 'gateway-admin.js');
  await bundle(ENTRY, file, { format: 'esm', banner: '#!/usr/bin/env node\n' });
  chmodSync(file, 0o755);
}

if (all || flags.includes('--executable')) {
  assertPinnedNode();
  const work = workDirectory('gateway-admin');
  await bundle(ENTRY, join(work, 'gateway-admin.cjs'), { format: 'cjs' });
  makeExecutable({ work, main: 'gateway-admin.cjs', assets: {}, output: join(DIST, 'gateway-admin') });
}
