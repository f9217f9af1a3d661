/**
 * The operation name the TypeScript client generator derives from method and path
 * (GET /api/v1/admin/info -> getApiV1AdminInfo). openapi-backend keys handlers on operationIds,
 * so the ids are derived in memory and never written into spec/openapi.json, whose lack of
 * operationIds is what keeps the three client generators' names in agreement.
 */
export function operationId(method: string, path: string): string {
  return (method + path)
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word, i) => (i === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1)))
    .join('');
}
