import { HttpUpstream } from './http-upstream.ts';

/**
 * The upstream connection pools (http-upstream.ts: keep-alive, by origin), one set per connect
 * timeout in use, since it is armed by the pools on each new connection; the other timeouts are
 * per request.
 */
export class Dispatchers {
  private readonly pools = new Map<number, HttpUpstream>();

  forConnectTimeout(connectMs: number): HttpUpstream {
    let pool = this.pools.get(connectMs);
    if (pool === undefined) {
      pool = new HttpUpstream(connectMs);
      this.pools.set(connectMs, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
    this.pools.clear();
  }
}
