// What the PostgreSQL store's batch functions cost the database (issue 19), without a gateway:
// for each source tree in PG_TREES (comma-separated, as for ab.ts; default this one) a fresh
// database at that tree's schema on a server started for the run (test/support/postgres.ts), one
// key with a budget and an rpm, a warm rpm window of PG_WINDOW admissions (20000) and a ledger of
// PG_LEDGER rows (50000), then PG_ROUNDS (150) rounds of one batch of PG_BATCH (24) requests each
// through gateway_take_rate, gateway_reserve and gateway_settle. Prints the database backend's CPU
// per request for each function (/proc), PG_REPEATS (2) times, trees interleaved. PG_TEAM=1: the
// key belongs to a team, and the ledger's rows are the team's. PG_TPM=1: the key also has a tpm, and
// its token window holds PG_WINDOW settled requests.
// `PG_TREES=/tmp/before,. node bench/postgres-batches.ts`
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { startPostgres } from '../test/support/postgres.ts';

const trees = (process.env.PG_TREES ?? '.').split(',').map((t) => resolve(t));
const batch = Number(process.env.PG_BATCH ?? 24);
const rounds = Number(process.env.PG_ROUNDS ?? 150);
const windowRows = Number(process.env.PG_WINDOW ?? 20_000);
const ledgerRows = Number(process.env.PG_LEDGER ?? 50_000);
const repeats = Number(process.env.PG_REPEATS ?? 2);
const team = process.env.PG_TEAM === '1' ? 'red' : null;
const tpm = process.env.PG_TPM === '1' ? 1_000_000_000 : null;

/** CPU µs of one process (a database backend) from /proc. */
function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10_000;
}

const server = await startPostgres();
try {
  for (let r = 0; r < repeats; r++)
    for (const tree of r % 2 === 0 ? trees : [...trees].reverse()) {
      const { migratePostgres } = (await import(
        join(tree, 'server/governance/postgres/postgres-schema.ts')
      )) as typeof import('../server/governance/postgres/postgres-schema.ts');
      const client = new pg.Client({ connectionString: await server.createDatabase() });
      await client.connect();
      try {
        await migratePostgres(client);
        const now = Date.now();
        await client.query(
          `INSERT INTO gateway_keys (id, prefix, secret_hash, budget_microcents, rpm, created_at, team) VALUES ('k1', 'p', '\\x01', 1000000000000000, 1000000, 0, $1)`,
          [team],
        );
        await client.query(
          `INSERT INTO gateway_admissions (key_id, at_ms) SELECT 'k1', $1::bigint - 59000 + (g * 50000 / $2::bigint) FROM generate_series(1, $2::bigint) g`,
          [now, windowRows],
        );
        await client.query(
          `INSERT INTO gateway_spend_ledger (key_id, request_id, model, lane, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_microcents, estimated, created_at, team)
           SELECT 'k1', 'old_' || g, 'm', 'l', 1, 1, 0, 0, 10, false, $1, $3 FROM generate_series(1, $2::bigint) g`,
          [now, ledgerRows, team],
        );
        await client.query('UPDATE gateway_keys SET spent_microcents = 10 * $1::bigint, tpm = $2', [ledgerRows, tpm]);
        if (tpm !== null)
          await client.query(
            `INSERT INTO gateway_token_window (key_id, at_ms, tokens, held) SELECT 'k1', $1::bigint - 59000 + (g * 50000 / $2::bigint), 150, false FROM generate_series(1, $2::bigint) g`,
            [now, windowRows],
          );
        await client.query('ANALYZE');
        const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        const keys = Array<string>(batch).fill('k1');
        const spent = { rate: 0, reserve: 0, settle: 0 };
        let request = 0;
        for (let round = 0; round < rounds; round++) {
          const c0 = cpuMicros(pid);
          await client.query('SELECT ord, retry_after_ms FROM gateway_take_rate($1::text[], $2::integer[], $3::bigint)', [
            keys,
            Array(batch).fill(1_000_000),
            null,
          ]);
          const c1 = cpuMicros(pid);
          const reserved = await client.query<{ ord: number; reservation_id: string }>(
            'SELECT * FROM gateway_reserve($1::text[], $2::bigint[], $3::bigint[], $4, $5::bigint, $6::text[], $7::bigint[], $8::text[], $9::bigint, $10::bigint)',
            [keys, Array(batch).fill(5_000_000n), Array(batch).fill(4216), 'node', 60_000, [], [], [], null, null],
          );
          const c2 = cpuMicros(pid);
          const ids = reserved.rows.sort((a, b) => a.ord - b.ord).map((row) => row.reservation_id);
          await client.query(
            'SELECT ord, recorded FROM gateway_settle($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::boolean[], $12::bigint, $13::bigint)',
            [
              ids,
              keys,
              ids.map(() => `req_${request++}`),
              Array(batch).fill('m'),
              Array(batch).fill('l'),
              Array(batch).fill(120),
              Array(batch).fill(30),
              Array(batch).fill(0),
              Array(batch).fill(0),
              Array(batch).fill(1800n),
              Array(batch).fill(false),
              null,
              null,
            ],
          );
          spent.rate += c1 - c0;
          spent.reserve += c2 - c1;
          spent.settle += cpuMicros(pid) - c2;
        }
        const per = (micros: number) => (micros / (rounds * batch)).toFixed(1);
        console.log(
          `${tree}: database CPU µs per request: take_rate ${per(spent.rate)}  reserve ${per(spent.reserve)}  settle ${per(spent.settle)}  all ${per(spent.rate + spent.reserve + spent.settle)}`,
        );
      } finally {
        await client.end();
      }
    }
} finally {
  server.stop();
}
