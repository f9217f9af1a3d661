import type { IncomingHttpHeaders } from 'node:http';

/**
 * The client key a request presents, from the carriers the six protocols' SDKs use, first present
 * wins: `Authorization: Bearer` (OpenAI, Responses, Cohere, Bedrock API keys), `x-api-key`
 * (Anthropic), `x-goog-api-key` (Gemini), then the `key` query parameter (Gemini REST).
 * An Authorization header of another scheme (Basic, AWS SigV4) carries no gateway key.
 */
export function presentedKey(headers: IncomingHttpHeaders, query: URLSearchParams): string | undefined {
  const bearer = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(first(headers.authorization) ?? '')?.[1];
  return nonEmpty(bearer) ?? nonEmpty(first(headers['x-api-key'])) ?? nonEmpty(first(headers['x-goog-api-key'])) ?? nonEmpty(query.get('key') ?? undefined);
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}
