import { parse as parseQuery } from 'node:querystring';
import type { ProtocolId } from '../ir/index.ts';
import type { RequestOrigin } from '../protocols/codec.ts';
import type { ProtocolRoute, RouteParams, RouteQuery } from '../protocols/definition.ts';
import { PROTOCOLS } from '../protocols/registry.ts';
import { OPERATION_HANDLERS, type ServeOperation } from './operation-handlers.ts';

/** A POST route whose path carries parameters (`/v1beta/models/:action`, `/model/:modelId/converse`). */
interface ParamRoute {
  readonly protocol: ProtocolId;
  readonly serve: ServeOperation;
  /** The path's segments; a parameter's is its name after `:`, and `names` says which are. */
  readonly segments: readonly string[];
  readonly names: readonly (string | undefined)[];
  readonly origin: NonNullable<ProtocolRoute['origin']>;
}

/** What a matched route serves: its protocol, its handler, and what its path and query said. */
export interface ParamRouteMatch {
  readonly protocol: ProtocolId;
  readonly serve: ServeOperation;
  readonly origin: RequestOrigin;
}

const NO_QUERY: RouteQuery = Object.freeze({});

/**
 * The protocols' POST routes with parameters in the path (Gemini's model and method, Bedrock's
 * model id), matched segment by segment in the registry's order, as the Koa router tries them:
 * a route whose `origin` says the request is not its own (Gemini's `:countTokens` route for a
 * `:generateContent` path) hands it to the next. A path that matches none, or that the router
 * would read differently (another case, a trailing slash, a parameter that is empty), is left to
 * the Koa app, so the answers are the router's either way.
 */
export class ParamRoutes {
  private readonly routes: ParamRoute[] = [];

  constructor() {
    for (const protocol of PROTOCOLS) {
      for (const route of protocol.routes) {
        const serve = OPERATION_HANDLERS[route.operation];
        if (route.method !== 'POST' || !route.path.includes(':') || route.origin === undefined || serve === undefined) continue;
        const segments = route.path.split('/');
        const names = segments.map((segment) => (segment.startsWith(':') ? segment.slice(1) : undefined));
        this.routes.push({ protocol: protocol.id, serve, segments, names, origin: route.origin });
      }
    }
  }

  /** The route that serves this POST path, with the origin its path and query give; undefined: the router's to answer. */
  match(path: string, querystring: string): ParamRouteMatch | undefined {
    let parts: string[] | undefined;
    let query: RouteQuery | undefined;
    for (const route of this.routes) {
      parts ??= path.split('/');
      const params = paramsOf(route, parts);
      if (params === undefined) continue;
      query ??= querystring === '' ? NO_QUERY : (parseQuery(querystring) as RouteQuery);
      const origin = route.origin(params, query);
      if (origin !== undefined) return { protocol: route.protocol, serve: route.serve, origin };
    }
    return undefined;
  }
}

/** The route's parameters from a path's segments, percent-decoded as the router gives them; undefined when it does not match. */
function paramsOf(route: ParamRoute, parts: readonly string[]): RouteParams | undefined {
  const { segments, names } = route;
  if (parts.length !== segments.length) return undefined;
  let params: Record<string, string> | undefined;
  for (let i = 0; i < segments.length; i++) {
    const name = names[i];
    const part = parts[i] as string;
    if (name === undefined) {
      if (part !== segments[i]) return undefined;
      continue;
    }
    if (part === '') return undefined;
    params ??= {};
    params[name] = decodeSegment(part);
  }
  return params ?? {};
}

/** As the router decodes a parameter: percent-decoded, or left as it came when it does not decode. */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
