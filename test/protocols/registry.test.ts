// The protocol registry is the one list of protocols: everything the gateway derives from it, and
// the published schemas that must name the same ones (spec-first, so they cannot import it).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INGRESS } from '../../server/gateway/ingress.ts';
import { fastRouteTable } from '../../server/http/fast-routes.ts';
import { guessProtocol } from '../../server/http/guess-protocol.ts';
import { OPERATION_HANDLERS } from '../../server/http/operation-handlers.ts';
import { OPERATIONS } from '../../server/ir/operation.ts';
import { PROTOCOLS, PROTOCOL_IDS, codecFor, protocolDefinition } from '../../server/protocols/registry.ts';

const spec = <T>(file: string): T => JSON.parse(readFileSync(new URL(`../../spec/${file}`, import.meta.url), 'utf8')) as T;
type Enum = { readonly enum: readonly string[] };

describe('the protocol registry', () => {
  it('lists each protocol once, its codec and definition under its own id', () => {
    expect(new Set(PROTOCOL_IDS).size).toBe(PROTOCOLS.length);
    for (const id of PROTOCOL_IDS) {
      expect(protocolDefinition(id).id).toBe(id);
      expect(codecFor(id)?.id).toBe(id);
      expect(INGRESS[id].codec).toBe(codecFor(id));
      // The chat ingress is the definition's own members, not a second declaration of them.
      expect(INGRESS[id].validateRequest).toBe(protocolDefinition(id).validators.chat);
      expect(INGRESS[id].forwardedHeaders).toBe(protocolDefinition(id).forwardedHeaders);
      expect(INGRESS[id].streamHeaders).toBe(protocolDefinition(id).streamHeaders);
    }
  });

  it('is the list the published schemas name (catalog and admin API)', () => {
    expect(spec<{ $defs: { ProtocolId: Enum } }>('catalog.schema.json').$defs.ProtocolId.enum).toEqual(PROTOCOL_IDS);
    expect(spec<{ components: { schemas: { ProtocolId: Enum } } }>('openapi.json').components.schemas.ProtocolId.enum).toEqual(PROTOCOL_IDS);
  });

  it('declares only known operations, each route with a path the router can take', () => {
    for (const protocol of PROTOCOLS) {
      for (const route of protocol.routes) {
        expect(OPERATIONS).toContain(route.operation);
        expect(route.path.startsWith('/'), route.path).toBe(true);
      }
      for (const operation of protocol.upstreamOperations) expect(OPERATIONS).toContain(operation);
      // A count endpoint is declared exactly where count_tokens is an upstream operation.
      expect(protocol.countEndpoint !== undefined, protocol.id).toBe(protocol.upstreamOperations.includes('count_tokens'));
    }
  });

  it('gives the fast path every fixed route whose body names the model, and no other', () => {
    const table = fastRouteTable();
    expect(Object.fromEntries([...table].map(([path, route]) => [path, route.protocol]))).toEqual({
      '/v1/chat/completions': 'openai',
      '/v1/embeddings': 'openai',
      '/v1/responses': 'responses',
      '/v1/messages': 'anthropic',
      '/v1/messages/count_tokens': 'anthropic',
      '/v2/chat': 'cohere',
    });
    expect(table.get('/v1/messages')?.serve).toBe(OPERATION_HANDLERS.chat);
    expect(table.get('/v1/messages/count_tokens')?.serve).toBe(OPERATION_HANDLERS.count_tokens);
    expect(table.get('/v1/embeddings')?.serve).toBe(OPERATION_HANDLERS.embeddings);
  });

  it("claims each protocol's own paths for its error shape", () => {
    for (const protocol of PROTOCOLS) {
      for (const route of protocol.routes) {
        // Gemini's one parameter is `model:method`; the others are a model id.
        const path = route.path.replace(/:([a-zA-Z]+)/g, (_, name: string) => (name === 'action' ? 'm:generateContent' : 'us.anthropic.claude-v1:0'));
        expect(guessProtocol(path, {}), path).toBe(protocol.id);
      }
    }
  });
});
