// Bedrock golden fixtures: test/fixtures/bedrock/<scenario>/ (see the README there). Request
// bodies carry no model: the gateway takes it from the path, given here by request.origin.json
// or, when a scenario has none, by DEFAULT_ORIGIN.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestOrigin } from '../../../../server/protocols/codec.ts';

const ROOT = fileURLToPath(new URL('../../../fixtures/bedrock/', import.meta.url));

export const DEFAULT_ORIGIN: RequestOrigin = { pathModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', pathStream: false };

export interface Scenario {
  readonly name: string;
  readonly dir: string;
}

export function scenarios(): Scenario[] {
  return readdirSync(ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ name: entry.name, dir: join(ROOT, entry.name) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export function hasFile(scenario: Scenario, file: string): boolean {
  return existsSync(join(scenario.dir, file));
}

export function readJson<T = unknown>(scenario: Scenario, file: string): T {
  return JSON.parse(readFileSync(join(scenario.dir, file), 'utf8')) as T;
}

export function readBytes(scenario: Scenario, file: string): Buffer {
  return readFileSync(join(scenario.dir, file));
}

export function originOf(scenario: Scenario): RequestOrigin {
  return hasFile(scenario, 'request.origin.json') ? readJson<RequestOrigin>(scenario, 'request.origin.json') : DEFAULT_ORIGIN;
}

/** `REGENERATE=1` rewrites stream.wire.bin from stream.frames.json (never the *.ir.json files). */
export const REGENERATE = process.env.REGENERATE === '1';

export function writeBytes(scenario: Scenario, file: string, bytes: Uint8Array): void {
  writeFileSync(join(scenario.dir, file), bytes);
}
