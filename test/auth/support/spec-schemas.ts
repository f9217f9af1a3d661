// The answers of POST /auth/token checked against spec/openapi.json, the contract the generated
// clients are built from.
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';

const spec = JSON.parse(readFileSync(new URL('../../../spec/openapi.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ ...spec, $id: 'openapi' });

/** Fails the test, naming the problems, when `value` does not match `#/components/schemas/<name>`. */
export function expectSpecShape(name: 'SelfServeKey' | 'ErrorView', value: unknown): void {
  const validate = ajv.getSchema(`openapi#/components/schemas/${name}`);
  if (validate === undefined) throw new Error(`spec/openapi.json has no schema ${name}`);
  expect(validate(value), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}
