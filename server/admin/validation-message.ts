import type { ErrorObject } from 'ajv';

/** openapi-backend validates an object { path, query, header, requestBody }; these are its parts as people call them. */
const PART_NAMES: Readonly<Record<string, string>> = { requestBody: 'body', path: 'path', query: 'query', header: 'header' };

/**
 * One line per schema problem, each naming the field: `body.budget_cents: must be >= 0`,
 * `body: unknown field "colour"`, `body: the request needs a body`, `body.metadata: the name "..." must NOT have more than 64 characters`.
 */
export function validationMessage(errors: readonly ErrorObject[]): string {
  const lines = errors.map((error) => {
    const segments = error.instancePath.split('/').slice(1).map(decodePointer);
    const field = [PART_NAMES[segments[0] ?? ''] ?? segments[0] ?? 'request', ...segments.slice(1)].join('.');
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'additionalProperties') return `${field}: unknown field ${JSON.stringify(params.additionalProperty)}`;
    if (error.keyword === 'required' && params.missingProperty === 'requestBody') return 'body: the request needs a JSON body';
    if (error.keyword === 'required') return `${field}.${String(params.missingProperty)}: is required`;
    if (error.keyword === 'enum') return `${field}: must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    // A map's key broke its rule (metadata names): ajv names it on the rule's own error, then adds a vaguer one.
    if (error.keyword === 'propertyNames') return undefined;
    if (typeof error.propertyName === 'string') return `${field}: the name ${JSON.stringify(error.propertyName)} ${error.message ?? 'is invalid'}`;
    return `${field}: ${error.message ?? 'is invalid'}`;
  });
  return [...new Set(lines.filter((line) => line !== undefined))].join('; ');
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
