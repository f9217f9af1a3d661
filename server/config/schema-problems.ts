import type { ErrorObject } from 'ajv';
import type { ConfigProblem } from './config-error.ts';
import type { YamlSource } from './yaml-source.ts';

/** Turns ajv errors into problems that name the file, the line and the path, in plain words. */
export function schemaProblems(source: YamlSource, errors: readonly ErrorObject[] | null | undefined): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    // anyOf/if branches repeat what their members already said.
    if (error.keyword === 'anyOf' || error.keyword === 'if') continue;
    const segments = pointerSegments(error.instancePath);
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'additionalProperties') {
      segments.push(String((error.params as { additionalProperty: string }).additionalProperty));
      message = 'unknown key (check the spelling; see spec/config.schema.json and spec/catalog.schema.json)';
    } else if (error.keyword === 'required') {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      message = `missing required key "${missing}"`;
    } else if (error.keyword === 'enum') {
      message = `must be one of: ${((error.params as { allowedValues: unknown[] }).allowedValues).join(', ')}`;
    } else if (error.keyword === 'propertyNames') {
      continue; // reported again, more precisely, as a pattern error on the name
    } else if (error.keyword === 'pattern' && error.propertyName !== undefined) {
      segments.push(error.propertyName);
      message = `name does not match ${(error.params as { pattern: string }).pattern}`;
    }
    const path = segments.join('.');
    const key = `${path}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const pos = source.locate(segments);
    problems.push({ file: source.file, path, message, ...(pos && { line: pos.line, column: pos.column }) });
  }
  return problems;
}

function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}
