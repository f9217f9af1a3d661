import type { ChatRequest, ContentBlock, ImageBlock, Message, ProtocolId } from '../ir/index.ts';
import { invalidField } from '../protocols/shared/invalid-field.ts';
import { MediaRefusal, type MediaFetcher } from './media-fetcher.ts';

/**
 * Protocols whose requests take image bytes only: Bedrock Converse (bytes or S3). The others take
 * a URL and their provider fetches it (Gemini as `fileData.fileUri`, the rest as the URL itself).
 */
const BYTES_ONLY: ReadonlySet<ProtocolId> = new Set(['bedrock']);

/** A request whose URLs are already fetched is kept, so a second Bedrock lane in a pool does not fetch again. */
const inlined = new WeakMap<ChatRequest, Promise<ChatRequest>>();

/**
 * The request as a lane of `target` can take it: for a bytes-only protocol, every image URL
 * (in messages and in tool results) is fetched and carried as base64. A refused or failed fetch is
 * a 400 naming the field. Other targets, and requests without image URLs, are returned as they are.
 */
export function inlineImageUrls(request: ChatRequest, target: ProtocolId, fetcher: MediaFetcher, signal: AbortSignal): Promise<ChatRequest> | ChatRequest {
  if (!BYTES_ONLY.has(target) || !fetcher.settings.enabled || !hasImageUrl(request)) return request;
  let pending = inlined.get(request);
  if (pending === undefined) {
    pending = fetchAll(request, fetcher, signal);
    inlined.set(request, pending);
  }
  return pending;
}

function hasImageUrl(request: ChatRequest): boolean {
  return request.messages.some((m) => m.content.some((b) => isUrlImage(b) || (b.type === 'tool_result' && b.content.some(isUrlImage))));
}

function isUrlImage(block: ContentBlock): block is ImageBlock & { source: { kind: 'url' } } {
  return block.type === 'image' && block.source.kind === 'url';
}

async function fetchAll(request: ChatRequest, fetcher: MediaFetcher, signal: AbortSignal): Promise<ChatRequest> {
  // One fetch per distinct URL, all at once; the first refusal wins.
  const fetches = new Map<string, Promise<ImageBlock['source']>>();
  const fetchOnce = (image: ImageBlock, path: string): Promise<ImageBlock> => {
    const url = (image.source as { url: string }).url;
    let source = fetches.get(url);
    if (source === undefined) {
      source = fetcher.fetch(url, signal).then(
        ({ mediaType, data }) => ({ kind: 'base64' as const, mediaType, data }),
        (error: unknown) => {
          if (error instanceof MediaRefusal) throw invalidField(`${path}.source.url`, `the image could not be fetched: ${error.message}`, 'image_fetch_refused');
          throw error;
        },
      );
      fetches.set(url, source);
    }
    return source.then((fetched) => ({ ...image, source: fetched }));
  };
  const messages = await Promise.all(request.messages.map(async (message, i): Promise<Message> => {
    if (!message.content.some((b) => isUrlImage(b) || b.type === 'tool_result')) return message;
    const content = await Promise.all(message.content.map(async (block, j): Promise<ContentBlock> => {
      const path = `messages[${i}].content[${j}]`;
      if (isUrlImage(block)) return fetchOnce(block, path);
      if (block.type !== 'tool_result' || !block.content.some(isUrlImage)) return block;
      const parts = await Promise.all(block.content.map((part, k) => (isUrlImage(part) ? fetchOnce(part, `${path}.content[${k}]`) : part)));
      return { ...block, content: parts };
    }));
    return { ...message, content };
  }));
  return { ...request, messages };
}
