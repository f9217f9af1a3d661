// Bedrock golden fixtures: test/fixtures/bedrock/<scenario>/ (see the README there). Request
// bodies carry no model: the gateway takes it from the path, given here by request.origin.json
// or, when a scenario has none, by DEFAULT_ORIGIN.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RequestOrigin } from '../../../../server/protocols/codec.ts';
import { type ScenarioDir, hasFile, readJson, scenariosIn } from '../../support/fixtures.ts';

export { hasFile, readBytes, readJson } from '../../support/fixtures.ts';
export type { ScenarioDir as Scenario } from '../../support/fixtures.ts';

export const DEFAULT_ORIGIN: RequestOrigin = { pathModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', pathStream: false };

export const scenarios = (): ScenarioDir[] => scenariosIn('bedrock');

export function originOf(scenario: ScenarioDir): RequestOrigin {
  return hasFile(scenario, 'request.origin.json') ? readJson<RequestOrigin>(scenario, 'request.origin.json') : DEFAULT_ORIGIN;
}

/** `REGENERATE=1` rewrites stream.wire.bin from stream.frames.json (never the *.ir.json files). */
export const REGENERATE = process.env.REGENERATE === '1';

export function writeBytes(scenario: ScenarioDir, file: string, bytes: Uint8Array): void {
  writeFileSync(join(scenario.dir, file), bytes);
}
