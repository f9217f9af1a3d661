import type { ChatRequest, ContentBlock, ImageBlock, Message, ProtocolId } from '../ir/index.ts';
import { mimeTypeOfUrl } from '../protocols/gemini/encode-parts.ts';
import { invalidField } from '../protocols/shared/invalid-field.ts';
import { MediaRefusal, type MediaFetcher } from './media-fetcher.ts';

/**
 * Which image URLs a target needs as bytes. Bedrock Converse takes bytes (or S3) only. Gemini takes
 * an http(s) URL as `fileData` but only with its MIME type, which the gateway reads from the URL's
 * extension: a URL without a known one is fetched (the answer's Content-Type names it). The other
 * protocols take any URL and their provider fetches it.
 */
const NEEDS_BYTES: Partial<Record<ProtocolId, (url: string) => boolean>> = {
  bedrock: () => true,
  gemini: (url) => /^https?:/i.test(url) && mimeTypeOfUrl(url) === undefined,
};

/** A request whose URLs are already fetched is kept per target, so a second lane of it in a pool does not fetch again. */
const inlined = new WeakMap<ChatRequest, Map<ProtocolId, Promise<ChatRequest>>>();

/**
 * The request as a lane of `target` can take it: every image URL the target needs as bytes (in
 * messages and in tool results) is fetched and carried as base64. A refused or failed fetch is
 * a 400 naming the field. Other targets, and requests without image URLs, are returned as they are.
 */
export function inlineImageUrls(request: ChatRequest, target: ProtocolId, fetcher: MediaFetcher, signal: AbortSignal): Promise<ChatRequest> | ChatRequest {
  const needs = NEEDS_BYTES[target];
  if (needs === undefined || !needsImageFetch(request, target, fetcher)) return request;
  let byTarget = inlined.get(request);
  if (byTarget === undefined) inlined.set(request, (byTarget = new Map()));
  let pending = byTarget.get(target);
  if (pending === undefined) {
    pending = fetchAll(request, needs, fetcher, signal);
    byTarget.set(target, pending);
  }
  return pending;
}

/** The request has an image URL that a lane of `target` needs as bytes, and fetching is on. */
export function needsImageFetch(request: ChatRequest, target: ProtocolId, fetcher: MediaFetcher): boolean {
  const needs = NEEDS_BYTES[target];
  return needs !== undefined && fetcher.settings.enabled && hasImageUrl(request, needs);
}

function hasImageUrl(request: ChatRequest, needs: (url: string) => boolean): boolean {
  const wanted = (b: ContentBlock) => isUrlImage(b) && needs(b.source.url);
  return request.messages.some((m) => m.content.some((b) => wanted(b) || (b.type === 'tool_result' && b.content.some(wanted))));
}

function isUrlImage(block: ContentBlock): block is ImageBlock & { source: { kind: 'url'; url: string } } {
  return block.type === 'image' && block.source.kind === 'url';
}

async function fetchAll(request: ChatRequest, needs: (url: string) => boolean, fetcher: MediaFetcher, signal: AbortSignal): Promise<ChatRequest> {
  const isWanted = (b: ContentBlock): b is ImageBlock & { source: { kind: 'url'; url: string } } => isUrlImage(b) && needs(b.source.url);
  // One fetch per distinct URL, all at once; the first refusal wins.
  const fetches = new Map<string, Promise<ImageBlock['source']>>();
  const fetchOnce = (image: ImageBlock, path: string): Promise<ImageBlock> => {
    const url = (image.source as { url: string }).url;
    let source = fetches.get(url);
    if (source === undefined) {
      source = fetcher.fetch(url, signal).then(
        ({ mediaType, data }) => ({ kind: 'base64' as const, mediaType, data }),
        (error: unknown) => {
          if (error instanceof MediaRefusal)
            throw invalidField(`${path}.source.url`, `the image could not be fetched: ${error.message}`, 'image_fetch_refused');
          throw error;
        },
      );
      fetches.set(url, source);
    }
    return source.then((fetched) => ({ ...image, source: fetched }));
  };
  const messages = await Promise.all(
    request.messages.map(async (message, i): Promise<Message> => {
      if (!message.content.some((b) => isWanted(b) || b.type === 'tool_result')) return message;
      const content = await Promise.all(
        message.content.map(async (block, j): Promise<ContentBlock> => {
          const path = `messages[${i}].content[${j}]`;
          if (isWanted(block)) return fetchOnce(block, path);
          if (block.type !== 'tool_result' || !block.content.some(isWanted)) return block;
          const parts = await Promise.all(block.content.map((part, k) => (isWanted(part) ? fetchOnce(part, `${path}.content[${k}]`) : part)));
          return { ...block, content: parts };
        }),
      );
      return { ...message, content };
    }),
  );
  return { ...request, messages };
}
