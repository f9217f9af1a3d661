import type { ImageSource } from '../../ir/index.ts';

const DATA_URL = /^data:([^;,]+)(?:;[^;,=]+=[^;,]*)*;base64,/;

/** `data:image/png;base64,...` becomes inline bytes; any other URL stays a URL. */
export function imageSourceFromUrl(url: string): ImageSource {
  const match = DATA_URL.exec(url);
  if (match === null) return { kind: 'url', url };
  return { kind: 'base64', mediaType: match[1] ?? 'application/octet-stream', data: url.slice(match[0].length) };
}

export function imageSourceToUrl(source: ImageSource): string {
  return source.kind === 'url' ? source.url : `data:${source.mediaType};base64,${source.data}`;
}
