import type { ErrorObject } from 'ajv';
import type { ConfigProblem } from './config-error.ts';
import type { YamlSource } from './yaml-source.ts';

/** Turns ajv errors into problems that name the file, the line and the path, in plain words. */
export function schemaProblems(source: YamlSource, errors: readonly ErrorObject[] | null | undefined): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  const all = errors ?? [];
  // The branches of an anyOf failing on the value itself are one problem: `governance: maybe`
  // "must be one of: on, off, or boolean", not two problems that contradict each other.
  const alternatives = all.filter((e) => e.keyword === 'anyOf');
  const branchOf = (e: ErrorObject) => alternatives.find((a) => a.instancePath === e.instancePath && e.schemaPath.startsWith(`${a.schemaPath}/`));
  for (const error of all) {
    if (error.keyword === 'if') continue; // its branches say what is wrong
    if (error.keyword !== 'anyOf' && branchOf(error) !== undefined) continue;
    const segments = pointerSegments(error.instancePath);
    let message = error.message ?? 'is invalid';
    if (error.keyword === 'anyOf') {
      const branches = all.filter((e) => e !== error && branchOf(e) === error).map(plainMessage);
      const [first, ...rest] = branches;
      if (first === undefined) continue; // the branches failed deeper down and were reported there
      message = [first, ...rest.map((m) => (first.startsWith('must be ') ? m.replace(/^must be /, '') : m))].join(', or ');
    } else if (error.keyword === 'additionalProperties') {
      segments.push(String((error.params as { additionalProperty: string }).additionalProperty));
      message = 'unknown key (check the spelling; see spec/config.schema.json and spec/catalog.schema.json)';
    } else if (error.keyword === 'required') {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      message = `missing required key "${missing}"`;
    } else if (error.keyword === 'enum') {
      message = plainMessage(error);
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
    const pos = source.locate(segments, error.keyword === 'additionalProperties' || error.propertyName !== undefined ? 'key' : 'value');
    problems.push({ file: source.file, path, message, ...(pos && { line: pos.line, column: pos.column }) });
  }
  return problems;
}

function plainMessage(error: ErrorObject): string {
  if (error.keyword === 'enum') return `must be one of: ${((error.params as { allowedValues: unknown[] }).allowedValues).join(', ')}`;
  return error.message ?? 'is invalid';
}

function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}
