// `make generate`: spec/ -> generated/. Deterministic: the same spec always gives the same bytes,
// so `make check-generated` can compare a fresh run against what is checked in.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitOpenApiTypes } from './emit-openapi-types.ts';
import { emitSchemaTypes } from './emit-schema-types.ts';
import { emitValidator } from './emit-validator.ts';
import { emitWireTypes, WIRE_KINDS, type WireKind, wireTypeName } from './emit-wire-types.ts';
import { writeGenerated } from './generated-file.ts';
import { lintOpenApi } from './lint-openapi.ts';
import { nullableOptionals } from './nullable-optionals.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const spec = (path: string) => join(root, 'spec', path);
const out = (path: string) => join(root, 'generated', path);
const readJson = (path: string): object => JSON.parse(readFileSync(path, 'utf8')) as object;
const rel = (path: string) => relative(root, path);

/** JSON Schemas compiled into validators: generated/validators/<name>.js */
const VALIDATORS: Record<string, string> = {
  config: 'config.schema.json',
  catalog: 'catalog.schema.json',
};
/** Wire types: generated/protocols/<protocol>/<kind>.ts, one per protocol schema. */
const WIRE_SCHEMAS: [protocol: string, kind: WireKind][] = [];
// Every protocol folder under spec/protocols/ holds the same four schemas.
for (const protocol of readdirSync(spec('protocols'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort()) {
  for (const kind of WIRE_KINDS) {
    VALIDATORS[`${protocol}-${kind}`] = `protocols/${protocol}/${kind}.schema.json`;
    WIRE_SCHEMAS.push([protocol, kind]);
  }
  // A protocol with embeddings has its request schema too (POST /v1/embeddings, :embedContent, ...).
  if (existsSync(spec(`protocols/${protocol}/embeddings-request.schema.json`)))
    VALIDATORS[`${protocol}-embeddings-request`] = `protocols/${protocol}/embeddings-request.schema.json`;
}

async function main(): Promise<void> {
  // Everything is produced in memory first: a spec that fails to lint or compile leaves the
  // checked-in generated/ untouched instead of half deleted.
  const files = new Map<string, string>();
  const openapiPath = spec('openapi.json');
  const openapiText = readFileSync(openapiPath, 'utf8');
  await lintOpenApi(openapiText, rel(openapiPath));
  files.set('admin-api.ts', await emitOpenApiTypes(openapiText, rel(openapiPath)));

  for (const [name, file] of [
    ['GatewayConfig', 'config.schema.json'],
    ['Catalog', 'catalog.schema.json'],
  ] as const) {
    const target = name === 'GatewayConfig' ? 'config-types.ts' : 'catalog-types.ts';
    files.set(target, await emitSchemaTypes(readJson(spec(file)), name, rel(spec(file))));
  }

  for (const [protocol, kind] of WIRE_SCHEMAS) {
    const file = spec(`protocols/${protocol}/${kind}.schema.json`);
    files.set(`protocols/${protocol}/${kind}.ts`, await emitWireTypes(readJson(file), wireTypeName(protocol, kind), rel(file)));
  }

  for (const [name, file] of Object.entries(VALIDATORS)) {
    // A request schema's optional members also accept null, as the providers do (nullable-optionals.ts).
    const schema = name.endsWith('-request') ? nullableOptionals(readJson(spec(file))) : readJson(spec(file));
    const { js, dts } = emitValidator(schema, rel(spec(file)));
    files.set(`validators/${name}.js`, js);
    files.set(`validators/${name}.d.ts`, dts);
  }

  rmSync(out(''), { recursive: true, force: true });
  for (const [path, content] of files) writeGenerated(out(path), content);
  console.log(`generated/ written from spec/ (${Object.keys(VALIDATORS).length} validators)`);
}

await main();
