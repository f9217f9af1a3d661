import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { ServerSecret } from '../server-secret.ts';
import { secretCheck } from '../server-secret.ts';

/**
 * The server secret for the shared store, as server-secret.ts does it for the file: the configured
 * governance_secret, or one generated once and kept in gateway_meta, where every node finds the
 * same one (so a key hashed on one node is found on every node). The first node to start writes
 * it; INSERT ... ON CONFLICT DO NOTHING then a read makes every other node take that one. A node
 * configured with another secret than the keys were hashed with is refused at start.
 */
export async function resolvePostgresSecret(client: pg.ClientBase, configured: string | undefined): Promise<ServerSecret> {
  const read = async (key: string) => (await client.query<{ value: string }>('SELECT value FROM gateway_meta WHERE key = $1', [key])).rows[0]?.value;
  const write = (key: string, value: string) =>
    client.query('INSERT INTO gateway_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, value]);
  let value = configured;
  if (value === undefined) {
    await write('generated_secret', randomBytes(32).toString('base64url'));
    value = (await read('generated_secret'))!;
  }
  await write('secret_check', secretCheck(value));
  if ((await read('secret_check')) !== secretCheck(value)) {
    throw new Error(
      `its keys were hashed with a different governance secret than the one now ${configured === undefined ? 'in use (none is configured)' : 'configured'}: give every gateway the original governance_secret, or use another database and issue new keys`,
    );
  }
  return { value, fromStore: configured === undefined };
}
