import { createConfig, lintFromString } from '@redocly/openapi-core';

/**
 * openapi-backend only checks OpenAPI 3.0 documents, so the 3.1 spec is linted here, at build
 * time, with Redocly's recommended rules minus the ones that contradict our naming contract
 * (operation names derive from method and path, so there are no operationIds).
 */
export async function lintOpenApi(source: string, path: string): Promise<void> {
  const config = await createConfig({
    extends: ['recommended'],
    rules: {
      'operation-operationId': 'off',
      'info-license': 'off',
      'no-server-example.com': 'off',
      'operation-4xx-response': 'off',
    },
  });
  const problems = await lintFromString({ source, absoluteRef: path, config });
  const errors = problems.filter((p) => p.severity === 'error');
  const warnings = problems.filter((p) => p.severity === 'warn');
  for (const p of [...errors, ...warnings]) {
    const where = p.location[0]?.pointer ?? '';
    console.error(`${p.severity}: ${path}${where}: ${p.message} (${p.ruleId})`);
  }
  if (errors.length > 0 || warnings.length > 0) throw new Error(`${path}: ${problems.length} lint problem(s)`);
}
