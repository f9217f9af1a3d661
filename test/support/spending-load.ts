// A key with a budget and a few official-SDK clients spending it until stopped: the load under
// which store backups are taken. Every answer counted was settled before it ended; a failed
// request fails the test (stop() rejects with it).
import OpenAI from 'openai';

export interface SpendingLoad {
  readonly keyId: string;
  /** Requests answered so far (each settled in the store before its answer ended). */
  answered(): number;
  /** Resolves once at least `count` requests have been answered. */
  reach(count: number): Promise<void>;
  /** Stops asking; resolves once every client's last request has ended. */
  stop(): Promise<void>;
}

export async function startSpendingLoad(options: { adminUrl: string; url: string; token: string; model: string; clients: number }): Promise<SpendingLoad> {
  const response = await fetch(`${options.adminUrl}/api/v1/admin/keys`, {
    method: 'POST',
    headers: { 'x-admin-token': options.token, 'content-type': 'application/json' },
    body: JSON.stringify({ budget_cents: 1_000_000 }),
  });
  const created = (await response.json()) as { id: string; secret: string };
  const client = new OpenAI({ apiKey: created.secret, baseURL: `${options.url}/v1`, maxRetries: 0 });
  let answered = 0;
  let stopping = false;
  const loop = async () => {
    while (!stopping) {
      await client.chat.completions.create({ model: options.model, max_completion_tokens: 50, messages: [{ role: 'user', content: 'hello there' }] });
      answered++;
    }
  };
  const loops = Promise.all(Array.from({ length: options.clients }, loop));
  return {
    keyId: created.id,
    answered: () => answered,
    async reach(count) {
      while (answered < count) await new Promise((resolve) => setTimeout(resolve, 10));
    },
    async stop() {
      stopping = true;
      await loops;
    },
  };
}
