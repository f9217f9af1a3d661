import openapiTS, { astToString } from 'openapi-typescript';
import { doNotEditHeader } from './generated-file.ts';

/** Server-side types of the admin API (paths, components) from spec/openapi.json. */
export async function emitOpenApiTypes(specText: string, sourceName: string): Promise<string> {
  const ast = await openapiTS(specText, { alphabetize: true });
  return doNotEditHeader(sourceName) + astToString(ast);
}
