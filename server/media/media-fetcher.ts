import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { forbiddenAddressReason } from './address-policy.ts';
import type { MediaFetchSettings } from './media-fetch-settings.ts';

/** Why an image URL was not fetched; the caller turns it into a 400 naming the field. */
export class MediaRefusal extends Error {}

export interface FetchedMedia {
  readonly mediaType: string;
  /** The bytes, base64: what every bytes-only protocol carries. */
  readonly data: string;
}

/** Name resolution, injectable so tests can make a name resolve to a metadata address. */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true }, (error, addresses) => (error === null ? resolve(addresses) : reject(error))));

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches image URLs for lanes that take bytes only, under the operator's `media_fetch` rules:
 * http(s) only, a byte limit, one time limit for the whole fetch, bounded redirects (each hop
 * checked again), an `image/*` content type, and no loopback, private, link-local or metadata
 * address. The address rule is applied to what the name resolves to, inside the connection's own
 * lookup, so the address checked is the address connected to: a name that resolves to a public
 * address when checked and to 127.0.0.1 when connecting (DNS rebinding) cannot pass.
 */
export class MediaFetcher {
  readonly settings: MediaFetchSettings;
  private readonly resolver: Resolver;
  private agent: Agent | undefined;

  constructor(settings: MediaFetchSettings, resolver: Resolver = systemResolver) {
    this.settings = settings;
    this.resolver = resolver;
  }

  async fetch(url: string, signal: AbortSignal): Promise<FetchedMedia> {
    const deadline = AbortSignal.timeout(this.settings.timeoutMs);
    const both = AbortSignal.any([signal, deadline]);
    try {
      return await this.follow(url, both);
    } catch (error) {
      if (error instanceof MediaRefusal) throw error;
      const refusal = refusalIn(error);
      if (refusal !== undefined) throw refusal;
      if (deadline.aborted) throw new MediaRefusal(`no complete answer within ${this.settings.timeoutMs} ms (media_fetch.timeout_ms)`);
      if (signal.aborted) throw error;
      throw new MediaRefusal(`the fetch failed (${(error as Error).message})`);
    }
  }

  async close(): Promise<void> {
    await this.agent?.close();
  }

  private async follow(first: string, signal: AbortSignal): Promise<FetchedMedia> {
    let url = this.checkUrl(first);
    for (let hop = 0; ; hop++) {
      const answer = await request(url, { dispatcher: this.dispatcher(), method: 'GET', signal, headers: { accept: 'image/*' } });
      if (REDIRECTS.has(answer.statusCode)) {
        await answer.body.dump();
        if (hop >= this.settings.maxRedirects) throw new MediaRefusal(`more than ${this.settings.maxRedirects} redirects (media_fetch.max_redirects)`);
        const location = answer.headers.location;
        if (typeof location !== 'string') throw new MediaRefusal(`a ${answer.statusCode} redirect without a Location`);
        url = this.checkUrl(new URL(location, url).href);
        continue;
      }
      if (answer.statusCode !== 200) {
        await answer.body.dump();
        throw new MediaRefusal(`the image host answered HTTP ${answer.statusCode}`);
      }
      const contentType =
        String(answer.headers['content-type'] ?? '')
          .split(';', 1)[0]
          ?.trim()
          .toLowerCase() ?? '';
      if (!contentType.startsWith('image/')) {
        await answer.body.dump();
        throw new MediaRefusal(`the content type is ${contentType === '' ? 'missing' : `"${contentType}"`}, not an image`);
      }
      const declared = Number(answer.headers['content-length']);
      if (Number.isFinite(declared) && declared > this.settings.maxBytes) {
        discard(answer.body);
        throw new MediaRefusal(`the image is ${declared} bytes, over media_fetch.max_bytes (${this.settings.maxBytes})`);
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of answer.body) {
        size += (chunk as Buffer).length;
        if (size > this.settings.maxBytes) {
          discard(answer.body);
          throw new MediaRefusal(`the image is over media_fetch.max_bytes (${this.settings.maxBytes})`);
        }
        chunks.push(chunk as Buffer);
      }
      return { mediaType: contentType, data: Buffer.concat(chunks, size).toString('base64') };
    }
  }

  /** Scheme and literal-address checks; names are checked when connecting (an IP literal is never looked up). */
  private checkUrl(text: string): string {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new MediaRefusal('not a valid URL');
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.settings.allowHttp)) {
      throw new MediaRefusal(`the scheme ${url.protocol.slice(0, -1)} is not fetched (${this.settings.allowHttp ? 'http and https' : 'https'} only)`);
    }
    if (url.username !== '' || url.password !== '') throw new MediaRefusal('URLs with credentials are not fetched');
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    if (isIP(host) !== 0 && !this.settings.allowPrivate) {
      const reason = forbiddenAddressReason(host);
      if (reason !== undefined) throw new MediaRefusal(`${host} is a ${reason} address (media_fetch.allow_private is off)`);
    }
    return url.href;
  }

  private dispatcher(): Agent {
    this.agent ??= new Agent({
      connect: { timeout: this.settings.timeoutMs, lookup: this.guardedLookup() },
      keepAliveTimeout: 10_000,
    });
    return this.agent;
  }

  /** net.connect's lookup: resolve, refuse when any address is not public, then hand over what was checked. */
  private guardedLookup(): LookupFunction {
    return (hostname, options, callback) => {
      this.resolver(hostname).then(
        (found) => {
          const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
          if (wanted.length === 0) return callback(new MediaRefusal(`${hostname} does not resolve`), '', 0);
          if (!this.settings.allowPrivate) {
            for (const { address } of wanted) {
              const reason = forbiddenAddressReason(address);
              if (reason !== undefined)
                return callback(new MediaRefusal(`${hostname} resolves to ${address}, a ${reason} address (media_fetch.allow_private is off)`), '', 0);
            }
          }
          if (options.all === true) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, [...wanted]);
          const first = wanted[0] as LookupAddress;
          return callback(null, first.address, first.family);
        },
        (error: Error) => callback(Object.assign(new MediaRefusal(`${hostname} does not resolve (${error.message})`), { code: 'ENOTFOUND' }), '', 0),
      );
    };
  }
}

/** Drops an answer's body unread; undici reports a destroyed body as an AbortError, which nobody needs here. */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => {});
  body.destroy();
}

/** The refusal a connection failed with, wherever undici wrapped it. */
function refusalIn(error: unknown): MediaRefusal | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof MediaRefusal) return e;
  }
  return undefined;
}
