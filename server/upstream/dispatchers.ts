import { UpstreamClient } from './upstream-client.ts';

/**
 * The upstream connection pools (upstream-client.ts: keep-alive, by origin), one client per connect
 * timeout in use (it is armed on each new connection); the other timeouts are per request.
 */
export class Dispatchers {
  private readonly pools = new Map<number, UpstreamClient>();

  forConnectTimeout(connectMs: number): UpstreamClient {
    let pool = this.pools.get(connectMs);
    if (pool === undefined) {
      pool = new UpstreamClient(connectMs);
      this.pools.set(connectMs, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
    this.pools.clear();
  }
}
