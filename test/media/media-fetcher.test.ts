// The image fetcher's rules, each one refused on its own, against real HTTP servers on loopback.
// Loopback is itself a forbidden address, so the tests that need a fetch to succeed set
// allow_private; the address rules are proved with it off (literal IPs, `localhost`, and a
// resolver that points names at 127.0.0.1 and the cloud metadata address).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forbiddenAddressReason } from '../../server/media/address-policy.ts';
import { DEFAULT_MEDIA_FETCH, type MediaFetchSettings } from '../../server/media/media-fetch-settings.ts';
import { MediaFetcher, MediaRefusal, type Resolver } from '../../server/media/media-fetcher.ts';

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cf00000301010018dd8db00000000049454e44ae426082',
  'hex',
);

let server: Server;
let port: number;
let hits = 0;

beforeAll(async () => {
  server = createServer((req, res: ServerResponse) => {
    hits++;
    const path = req.url ?? '/';
    if (path === '/cat.png') res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG.length }).end(PNG);
    else if (path === '/page.html') res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    else if (path === '/big.png') res.writeHead(200, { 'content-type': 'image/png', 'content-length': 5000 }).end(Buffer.alloc(5000));
    else if (path === '/big-chunked.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(Buffer.alloc(3000));
      res.end(Buffer.alloc(3000));
    } else if (path.startsWith('/loop')) res.writeHead(302, { location: `/loop${Number(path.slice(5) || 0) + 1}` }).end();
    else if (path === '/to-cat') res.writeHead(301, { location: '/cat.png' }).end();
    else if (path === '/to-file') res.writeHead(302, { location: 'file:///etc/passwd' }).end();
    else if (path === '/hang') {
      /* never answers */
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function fetcher(overrides: Partial<MediaFetchSettings> = {}, resolver?: Resolver): MediaFetcher {
  return new MediaFetcher({ ...DEFAULT_MEDIA_FETCH, ...overrides }, resolver);
}

async function refusal(f: MediaFetcher, url: string): Promise<string> {
  try {
    await f.fetch(url, new AbortController().signal);
  } catch (error) {
    expect(error).toBeInstanceOf(MediaRefusal);
    return (error as Error).message;
  } finally {
    await f.close();
  }
  throw new Error(`${url} was fetched`);
}

/** A resolver that sends every name to `address`, as a hostile DNS server would. */
const resolvingTo =
  (address: string): Resolver =>
  async () => [{ address, family: address.includes(':') ? 6 : 4 }];

describe('media fetcher: what it fetches', () => {
  it('an image on an allowed host: the bytes and the media type', async () => {
    const f = fetcher({ allowPrivate: true });
    const got = await f.fetch(`http://127.0.0.1:${port}/cat.png`, new AbortController().signal);
    await f.close();
    expect(got.mediaType).toBe('image/png');
    expect(Buffer.from(got.data, 'base64').equals(PNG)).toBe(true);
  });

  it('follows a redirect within the limit', async () => {
    const f = fetcher({ allowPrivate: true });
    const got = await f.fetch(`http://localhost:${port}/to-cat`, new AbortController().signal);
    await f.close();
    expect(Buffer.from(got.data, 'base64').equals(PNG)).toBe(true);
  });
});

describe('media fetcher: what it refuses (defaults: allow_private off)', () => {
  it('loopback by literal address, before any connection', async () => {
    const before = hits;
    expect(await refusal(fetcher(), `http://127.0.0.1:${port}/cat.png`)).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(hits).toBe(before);
  });

  it.each([
    ['http://10.1.2.3/x.png', /private/],
    ['http://192.168.0.10/x.png', /private/],
    ['http://172.20.0.1/x.png', /private/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://[::1]/x.png', /loopback/],
    ['http://[::ffff:127.0.0.1]/x.png', /loopback/],
    ['http://[fd00:ec2::254]/x.png', /unique local/],
    ['http://100.100.100.200/x.png', /shared address space/],
    ['http://0.0.0.0/x.png', /this network/],
  ])('%s', async (url, reason) => {
    expect(await refusal(fetcher(), url)).toMatch(reason);
  });

  it('a name that resolves to 127.0.0.1 (localhost), judged at connect time', async () => {
    const before = hits;
    expect(await refusal(fetcher(), `http://localhost:${port}/cat.png`)).toMatch(/localhost resolves to (127\.0\.0\.1|::1), a loopback address/);
    expect(hits).toBe(before);
  });

  it('a name a hostile resolver points at the metadata address', async () => {
    expect(await refusal(fetcher({}, resolvingTo('169.254.169.254')), 'http://images.example.test/cat.png')).toMatch(
      /resolves to 169\.254\.169\.254, a link-local \(cloud metadata\) address/,
    );
  });

  it('a name a hostile resolver points at loopback, although the server there would answer', async () => {
    const before = hits;
    expect(await refusal(fetcher({}, resolvingTo('127.0.0.1')), `http://images.example.test:${port}/cat.png`)).toMatch(/resolves to 127\.0\.0\.1/);
    expect(hits).toBe(before);
  });

  it.each(['file:///etc/passwd', 'ftp://example.com/x.png', 'gopher://example.com/', 'data:image/png;base64,AAAA'])('the scheme of %s', async (url) => {
    expect(await refusal(fetcher({ allowPrivate: true }), url)).toMatch(/scheme .* is not fetched/);
  });

  it('plain http when allow_http is off', async () => {
    expect(await refusal(fetcher({ allowPrivate: true, allowHttp: false }), `http://127.0.0.1:${port}/cat.png`)).toMatch(
      /scheme http is not fetched \(https only\)/,
    );
  });

  it('a redirect to a scheme it does not fetch', async () => {
    expect(await refusal(fetcher({ allowPrivate: true }), `http://127.0.0.1:${port}/to-file`)).toMatch(/scheme file/);
  });

  it('more redirects than max_redirects', async () => {
    expect(await refusal(fetcher({ allowPrivate: true, maxRedirects: 2 }), `http://127.0.0.1:${port}/loop0`)).toMatch(/more than 2 redirects/);
  });

  it('a content type that is not an image', async () => {
    expect(await refusal(fetcher({ allowPrivate: true }), `http://127.0.0.1:${port}/page.html`)).toMatch(/content type is "text\/html", not an image/);
  });

  it('an image over max_bytes, by its Content-Length', async () => {
    expect(await refusal(fetcher({ allowPrivate: true, maxBytes: 4096 }), `http://127.0.0.1:${port}/big.png`)).toMatch(
      /5000 bytes, over media_fetch.max_bytes \(4096\)/,
    );
  });

  it('an image over max_bytes, counted while reading (no Content-Length)', async () => {
    expect(await refusal(fetcher({ allowPrivate: true, maxBytes: 4096 }), `http://127.0.0.1:${port}/big-chunked.png`)).toMatch(
      /over media_fetch.max_bytes \(4096\)/,
    );
  });

  it('a host that does not answer within timeout_ms', async () => {
    const started = Date.now();
    expect(await refusal(fetcher({ allowPrivate: true, timeoutMs: 300 }), `http://127.0.0.1:${port}/hang`)).toMatch(/within 300 ms/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('an error status', async () => {
    expect(await refusal(fetcher({ allowPrivate: true }), `http://127.0.0.1:${port}/missing.png`)).toMatch(/HTTP 404/);
  });
});

describe('address policy', () => {
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '172.32.0.1', '100.128.0.1'])('%s is public', (address) => {
    expect(forbiddenAddressReason(address)).toBeUndefined();
  });
});
