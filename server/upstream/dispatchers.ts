import { Agent } from 'undici';

/**
 * Keep-alive connection pools (undici keys them by origin inside an Agent), one Agent per connect
 * timeout in use, since undici fixes that timeout per Agent; the other timeouts are per request.
 */
export class Dispatchers {
  private readonly agents = new Map<number, Agent>();

  forConnectTimeout(connectMs: number): Agent {
    let agent = this.agents.get(connectMs);
    if (agent === undefined) {
      agent = new Agent({ connect: { timeout: connectMs }, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 });
      this.agents.set(connectMs, agent);
    }
    return agent;
  }

  async close(): Promise<void> {
    await Promise.all([...this.agents.values()].map((agent) => agent.close()));
    this.agents.clear();
  }
}
