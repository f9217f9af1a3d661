import type { IncomingHttpHeaders } from 'node:http';
import type { ModelRoute, Operation, RuntimeConfig } from '../config/runtime-config.ts';
import { modelAllowed } from '../governance/model-allow-list.ts';
import type { KeyRecord } from '../governance/key-record.ts';

/** One name a client may send (a model or a pool) and what it serves. */
interface ListedName {
  readonly id: string;
  readonly owner: string;
  readonly operations: readonly Operation[];
}

/**
 * The names clients may send, models then pools, each with the operations it serves (a pool: what
 * any of its members serves, since failover skips a member that does not); for a key with a
 * `models` allow-list, only the names on it (undefined: governance off or no key, every name).
 */
function listedNames(config: RuntimeConfig, key: KeyRecord | undefined): ListedName[] {
  const names: ListedName[] = [];
  for (const m of config.models.values()) if (modelAllowed(key, m.name)) names.push({ id: m.name, owner: m.provider.name, operations: [...m.operations] });
  for (const p of config.pools.values())
    if (modelAllowed(key, p.name)) names.push({ id: p.name, owner: 'pool', operations: operationsOf(p.members.map((m) => m.model)) });
  return names;
}

function operationsOf(lanes: readonly ModelRoute[]): Operation[] {
  const all = new Set<Operation>();
  for (const lane of lanes) for (const op of lane.operations) all.add(op);
  return [...all];
}

/** Whose list shape an answer takes: the SDK asking says by its protocol header. */
export type ModelListShape = 'openai' | 'anthropic' | 'gemini';

export function modelListShape(headers: IncomingHttpHeaders): ModelListShape {
  if (headers['anthropic-version'] !== undefined) return 'anthropic';
  if (headers['x-goog-api-key'] !== undefined) return 'gemini';
  return 'openai';
}

/**
 * `GET /v1/models`: OpenAI's list shape plus the gateway's own `operations` member on each entry;
 * Anthropic's (models.list() of its SDK) or Gemini's (`models/{id}` names and the methods each
 * supports) for those SDKs.
 */
export function listModels(config: RuntimeConfig, shape: ModelListShape, key?: KeyRecord): Record<string, unknown> {
  const names = listedNames(config, key);
  if (shape === 'gemini') return { models: names.map(geminiEntry) };
  if (shape === 'anthropic') {
    return {
      data: names.map((n) => anthropicEntry(config, n)),
      has_more: false,
      first_id: names[0]?.id ?? null,
      last_id: names[names.length - 1]?.id ?? null,
    };
  }
  return { object: 'list', data: names.map((n) => openaiEntry(config, n)) };
}

/**
 * `GET /v1/models/{id}`: one entry in the same shapes (Gemini's id may be `models/{id}`); undefined
 * for a name not configured. The caller refuses a name the key may not use first (`modelIdOf`).
 */
export function retrieveModel(config: RuntimeConfig, shape: ModelListShape, id: string): Record<string, unknown> | undefined {
  const bare = modelIdOf(shape, id);
  const name = listedNames(config, undefined).find((n) => n.id === bare);
  if (name === undefined) return undefined;
  if (shape === 'gemini') return geminiEntry(name);
  return shape === 'anthropic' ? anthropicEntry(config, name) : openaiEntry(config, name);
}

/** The configured name a `GET /v1/models/{id}` asks for (Gemini's SDK sends `models/{id}`). */
export function modelIdOf(shape: ModelListShape, id: string): string {
  return shape === 'gemini' && id.startsWith('models/') ? id.slice('models/'.length) : id;
}

function openaiEntry(config: RuntimeConfig, n: ListedName): Record<string, unknown> {
  return { id: n.id, object: 'model', created: Math.floor(config.loadedAt.getTime() / 1000), owned_by: n.owner, operations: n.operations };
}

function anthropicEntry(config: RuntimeConfig, n: ListedName): Record<string, unknown> {
  return { type: 'model', id: n.id, display_name: n.id, created_at: config.loadedAt.toISOString(), operations: n.operations };
}

/** Gemini names its methods; the operations map onto the ones it has. */
const GEMINI_METHODS: Partial<Record<Operation, readonly string[]>> = {
  chat: ['generateContent', 'streamGenerateContent'],
  count_tokens: ['countTokens'],
  embeddings: ['embedContent', 'batchEmbedContents'],
};

function geminiEntry(n: ListedName): Record<string, unknown> {
  return {
    name: `models/${n.id}`,
    displayName: n.id,
    supportedGenerationMethods: n.operations.flatMap((op) => GEMINI_METHODS[op] ?? []),
    operations: n.operations,
  };
}
