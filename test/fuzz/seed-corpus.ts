// The fuzz suite's seeds: real request bodies per client protocol. Captured provider payloads in
// test/fixtures/real/<protocol>/requests/*.json come first when that corpus exists; the golden
// codec fixtures (test/fixtures/<protocol>/*/request.wire.json) and the matrix scenarios
// (test/fixtures/matrix/*/<protocol>.request.json) are always there.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProtocolId } from '../../server/ir/index.ts';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export interface Seed {
  readonly protocol: ProtocolId;
  /** Where it came from, relative to test/fixtures/. */
  readonly source: string;
  readonly body: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A captured file is either the request body itself or an envelope around it (`{ "body": {...},
 * "path": ..., "headers": ... }`); either way the body is what the fuzz suite mutates.
 */
function bodyOf(parsed: unknown): Record<string, unknown> | undefined {
  if (!isObject(parsed)) return undefined;
  if (isObject(parsed.body) && (parsed.path !== undefined || parsed.headers !== undefined || parsed.method !== undefined)) return parsed.body;
  if (isObject(parsed.request) && isObject(parsed.request.body)) return parsed.request.body;
  return parsed;
}

function readSeed(protocol: ProtocolId, relative: string): Seed | undefined {
  try {
    const body = bodyOf(JSON.parse(readFileSync(join(FIXTURES, relative), 'utf8')));
    return body === undefined ? undefined : { protocol, source: relative, body };
  } catch {
    return undefined; // a corpus file that is not JSON is not a seed
  }
}

function filesIn(relativeDir: string, accept: (name: string) => boolean): string[] {
  const dir = join(FIXTURES, relativeDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter(accept)
    .sort()
    .map((name) => join(relativeDir, name));
}

/** Every seed for one client protocol, real captures first. */
export function seedsFor(protocol: ProtocolId): Seed[] {
  const real = filesIn(join('real', protocol, 'requests'), (n) => n.endsWith('.json'));
  const golden = filesIn(protocol, () => true)
    .map((scenario) => join(scenario, 'request.wire.json'))
    .filter((p) => existsSync(join(FIXTURES, p)));
  const matrix = filesIn('matrix', () => true)
    .map((scenario) => join(scenario, `${protocol}.request.json`))
    .filter((p) => existsSync(join(FIXTURES, p)));
  return [...real, ...golden, ...matrix].map((p) => readSeed(protocol, p)).filter((s): s is Seed => s !== undefined);
}

export interface Corpus {
  readonly seeds: Readonly<Record<ProtocolId, readonly Seed[]>>;
  /** How many seeds came from the captured corpus (test/fixtures/real). */
  readonly realCount: number;
}

export function loadCorpus(): Corpus {
  const seeds = Object.fromEntries(PROTOCOL_IDS.map((p) => [p, seedsFor(p)])) as Record<ProtocolId, Seed[]>;
  for (const p of PROTOCOL_IDS) if (seeds[p].length === 0) throw new Error(`no fuzz seeds for ${p} under test/fixtures/`);
  const realCount = PROTOCOL_IDS.reduce((n, p) => n + seeds[p].filter((s) => s.source.startsWith('real')).length, 0);
  return { seeds, realCount };
}
