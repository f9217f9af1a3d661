// Golden fixtures live in test/fixtures/<protocol>/<scenario>/. A scenario folder holds any of:
// request.wire.json + request.ir.json, response.wire.json + response.ir.json,
// stream.wire.txt (raw SSE bytes as the provider sends them) + stream.ir.json (IR events).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type FixtureProtocol = 'openai' | 'anthropic';
export const FIXTURE_PROTOCOLS: readonly FixtureProtocol[] = ['openai', 'anthropic'];

const ROOT = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** One scenario folder of any protocol's fixtures (the Bedrock, Cohere, Gemini and Responses suites use these too). */
export interface ScenarioDir {
  readonly name: string;
  readonly dir: string;
}

export interface Scenario extends ScenarioDir {
  readonly protocol: FixtureProtocol;
}

/** The scenario folders under test/fixtures/<protocol>/, sorted by name. */
export function scenariosIn<P extends string>(protocol: P): (ScenarioDir & { readonly protocol: P })[] {
  return readdirSync(join(ROOT, protocol), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ protocol, name: entry.name, dir: join(ROOT, protocol, entry.name) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export function scenarios(protocol?: FixtureProtocol): Scenario[] {
  const protocols = protocol === undefined ? FIXTURE_PROTOCOLS : [protocol];
  return protocols.flatMap((p) => scenariosIn(p));
}

export function hasFile(scenario: ScenarioDir, file: string): boolean {
  return existsSync(join(scenario.dir, file));
}

export function readJson<T = unknown>(scenario: ScenarioDir, file: string): T {
  return JSON.parse(readFileSync(join(scenario.dir, file), 'utf8')) as T;
}

export function readBytes(scenario: ScenarioDir, file: string): Buffer {
  return readFileSync(join(scenario.dir, file));
}

/** `REGENERATE=1` writes what the code produces, for a human to review before it is checked in. */
export const REGENERATE = process.env.REGENERATE === '1';

export function writeJson(scenario: ScenarioDir, file: string, value: unknown): void {
  writeFileSync(join(scenario.dir, file), JSON.stringify(value, null, 2) + '\n');
}
