// The golden scenario matrix: test/fixtures/matrix/<scenario>/ holds one IR file per side
// (request.ir.json, response.ir.json) and one hand-written wire file per protocol that can express
// the scenario (<protocol>.request.json, <protocol>.response.json). See that folder's README.
import type { ValidateFunction } from 'ajv';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import anthropicRequest from '../../generated/validators/anthropic-request.js';
import anthropicResponse from '../../generated/validators/anthropic-response.js';
import bedrockRequest from '../../generated/validators/bedrock-request.js';
import bedrockResponse from '../../generated/validators/bedrock-response.js';
import cohereRequest from '../../generated/validators/cohere-request.js';
import cohereResponse from '../../generated/validators/cohere-response.js';
import geminiRequest from '../../generated/validators/gemini-request.js';
import geminiResponse from '../../generated/validators/gemini-response.js';
import openaiRequest from '../../generated/validators/openai-request.js';
import openaiResponse from '../../generated/validators/openai-response.js';
import responsesRequest from '../../generated/validators/responses-request.js';
import responsesResponse from '../../generated/validators/responses-response.js';
import type { ProtocolId } from '../../server/ir/index.ts';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';
import type { LaneContext, ProtocolCodec, RequestOrigin } from '../../server/protocols/codec.ts';
import { codecFor } from '../../server/protocols/registry.ts';

export type Side = 'request' | 'response';
export const SIDES: readonly Side[] = ['request', 'response'];

/** A wire body as read from a fixture file. */
export type Json = Record<string, unknown>;

/** The one lane every encode uses: the wire files are what each encoder writes for it. */
export const LANE: LaneContext = { model: 'upstream-model', defaultMaxTokens: 1024 };

/** The model the client named, for the protocols that name it in the path (the body has none). */
export const CLIENT_MODEL = 'client-model';
const PATH_MODEL_PROTOCOLS: ReadonlySet<ProtocolId> = new Set(['gemini', 'bedrock']);

export function originFor(protocol: ProtocolId): RequestOrigin {
  return PATH_MODEL_PROTOCOLS.has(protocol) ? { pathModel: CLIENT_MODEL } : {};
}

export function codecOf(protocol: ProtocolId): ProtocolCodec {
  const codec = codecFor(protocol);
  if (codec === undefined) throw new Error(`no codec registered for ${protocol}`);
  return codec;
}

export const VALIDATORS: Readonly<Record<ProtocolId, Readonly<Record<Side, ValidateFunction>>>> = {
  openai: { request: openaiRequest, response: openaiResponse },
  responses: { request: responsesRequest, response: responsesResponse },
  anthropic: { request: anthropicRequest, response: anthropicResponse },
  gemini: { request: geminiRequest, response: geminiResponse },
  bedrock: { request: bedrockRequest, response: bedrockResponse },
  cohere: { request: cohereRequest, response: cohereResponse },
};

/** Schema violations as readable lines; `[]` when valid. */
export function schemaErrors(validate: ValidateFunction, value: unknown): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

export const ROOT = fileURLToPath(new URL('../fixtures/matrix/', import.meta.url));

export interface MatrixScenario {
  readonly name: string;
  readonly dir: string;
}

export function matrixScenarios(): MatrixScenario[] {
  return readdirSync(ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ name: entry.name, dir: join(ROOT, entry.name) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export function irFile(side: Side): string {
  return `${side}.ir.json`;
}

export function wireFile(protocol: ProtocolId, side: Side): string {
  return `${protocol}.${side}.json`;
}

export function hasFile(scenario: MatrixScenario, file: string): boolean {
  return existsSync(join(scenario.dir, file));
}

/** A fresh parse on every call, so no check can see another's mutations. */
export function readJson<T = Json>(scenario: MatrixScenario, file: string): T {
  return JSON.parse(readFileSync(join(scenario.dir, file), 'utf8')) as T;
}

/** The protocols with a wire file for this side of the scenario, in PROTOCOL_IDS order. */
export function protocolsWith(scenario: MatrixScenario, side: Side): ProtocolId[] {
  return PROTOCOL_IDS.filter((p) => hasFile(scenario, wireFile(p, side)));
}

/** Every file name a scenario folder may hold; anything else is a typo the inventory test reports. */
export function knownFileNames(): Set<string> {
  const names = new Set<string>();
  for (const side of SIDES) {
    names.add(irFile(side));
    for (const p of PROTOCOL_IDS) names.add(wireFile(p, side));
  }
  return names;
}
