import Ajv2020 from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { doNotEditHeader } from './generated-file.ts';

export interface EmittedValidator {
  readonly js: string;
  readonly dts: string;
}

/**
 * A precompiled ajv validator (no schema compilation at start-up or per request), with no imports
 * at all: `unicode: false` measures string lengths in UTF-16 units instead of calling ajv's
 * ucs2length helper, which is all our minLength checks need. Any other runtime helper would appear
 * as a require() that ESM cannot run, so codegen refuses it.
 */
/** ajv calls `unicode` deprecated; it is still the switch that keeps the helper out. */
const QUIET_ABOUT_UNICODE = {
  log: console.log,
  warn: (...args: unknown[]) => {
    if (!String(args[0]).startsWith('DEPRECATED: option unicode')) console.warn(...args);
  },
  error: console.error,
};

export function emitValidator(schema: object, sourceName: string): EmittedValidator {
  const ajv = new Ajv2020.default({ strict: true, allErrors: true, unicode: false, code: { source: true, esm: true }, logger: QUIET_ABOUT_UNICODE });
  const validate = ajv.compile(schema);
  const code = standaloneCode.default(ajv, validate).replace(/^"use strict";\n?/, '');
  const runtimeHelper = /require\("([^"]+)"\)/.exec(code);
  if (runtimeHelper !== null) throw new Error(`${sourceName}: the validator needs ajv runtime helper ${runtimeHelper[1]}; avoid the keyword that pulls it in`);
  const js = `${doNotEditHeader(sourceName)}${code}\n`;
  const dts =
    `${doNotEditHeader(sourceName)}import type { ValidateFunction } from 'ajv';\n` +
    'export declare const validate: ValidateFunction;\nexport default validate;\n';
  return { js, dts };
}
