import { parseArgs } from 'node:util';

export const STORE_USAGE = `usage: gateway store migrate --from <db_path> --to <database_url | env:VARIABLE>
       copies keys, spend, self-serve identities and the server secret from the embedded SQLite
       store into an empty PostgreSQL database (stop the gateway first); env:VARIABLE reads the URL
       from the environment, keeping its password out of the process list`;

/** `gateway store ...`: the store's own commands. Returns the exit code. */
export async function runStoreCommand(args: readonly string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: { from: { type: 'string' }, to: { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help === true) {
    console.log(STORE_USAGE);
    return 0;
  }
  if (positionals[0] !== 'migrate' || positionals.length !== 1 || values.from === undefined || values.to === undefined) {
    console.error(STORE_USAGE);
    return 2;
  }
  let url = values.to;
  if (url.startsWith('env:')) {
    const name = url.slice(4);
    url = process.env[name] ?? '';
    if (url === '') {
      console.error(`gateway store migrate: environment variable ${name} is not set`);
      return 2;
    }
  }
  const { migrateSqliteToPostgres } = await import('./governance/postgres/migrate-from-sqlite.ts');
  try {
    const counts = await migrateSqliteToPostgres(values.from, url);
    console.log(`migrated ${values.from} to PostgreSQL: ${counts.keys} keys, ${counts.ledgerRows} spend ledger rows, ${counts.identities} identities`);
    return 0;
  } catch (error) {
    console.error(`gateway store migrate: ${(error as Error).message}`);
    return 1;
  }
}
