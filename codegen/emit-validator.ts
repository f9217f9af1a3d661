import Ajv2020 from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { doNotEditHeader } from './generated-file.ts';

export interface EmittedValidator {
  readonly js: string;
  readonly dts: string;
}

/**
 * A precompiled ajv validator (no schema compilation at start-up or per request). ajv's
 * standalone ESM output still calls require() for its runtime helpers; those become imports.
 */
export function emitValidator(schema: object, sourceName: string): EmittedValidator {
  const ajv = new Ajv2020.default({ strict: true, allErrors: true, code: { source: true, esm: true } });
  const validate = ajv.compile(schema);
  let code = standaloneCode.default(ajv, validate).replace(/^"use strict";\n?/, '');
  const imports: string[] = [];
  code = code.replace(/require\("([^"]+)"\)/g, (_match, mod: string) => {
    const local = `runtime${imports.length}`;
    imports.push(`import ${local} from "${mod}.js";`);
    return local;
  });
  const js = `${doNotEditHeader(sourceName)}${imports.join('\n')}${imports.length ? '\n' : ''}${code}\n`;
  const dts = `${doNotEditHeader(sourceName)}import type { ValidateFunction } from 'ajv';\n` +
    'export declare const validate: ValidateFunction;\nexport default validate;\n';
  return { js, dts };
}
