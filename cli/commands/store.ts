// gateway-admin store backup FILE: a consistent copy of the gateway's embedded SQLite store, made
// while it serves (POST /api/v1/admin/store/backup), written to FILE atomically: the bytes go to a
// temporary file beside it, are flushed to disk, then renamed over FILE, so FILE is either the old
// one or the whole new copy, never half of one.
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { postApiV1AdminStoreBackup } from '../../clients-ts/src/index.ts';
import { withConnection } from '../connection.ts';
import { call, CliError } from '../errors.ts';
import { print, printJson } from '../output.ts';

/** The first 16 bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

export function registerStore(program: Command): void {
  const store = program.command('store').description('the embedded SQLite store (db_path)');
  store
    .command('backup')
    .argument('<file>', 'where to write the copy (replaced atomically if it exists)')
    .description(
      'copy the store while the gateway serves: keys, spend, ledger and identities, as a SQLite file (restore: stop the gateway, replace db_path with it, start)',
    )
    .action((file: string, _options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const copy = await call(connection, postApiV1AdminStoreBackup({ client: connection.client }));
        const bytes = Buffer.from(await copy.arrayBuffer());
        if (!bytes.subarray(0, SQLITE_HEADER.length).equals(SQLITE_HEADER)) {
          throw new CliError(
            `the answer from ${connection.endpoint} is not a SQLite database (${bytes.length} bytes): nothing written`,
            1,
            'unexpected_answer',
            200,
          );
        }
        const target = resolve(file);
        await writeAtomically(target, bytes);
        if (connection.json) printJson({ file: target, bytes: bytes.length });
        else print(`wrote the store backup to ${target} (${bytes.length} bytes)`);
      }),
    );
}

async function writeAtomically(target: string, bytes: Buffer): Promise<void> {
  const directory = dirname(target);
  const temporary = join(directory, `.${basename(target)}.${randomBytes(6).toString('hex')}.partial`);
  try {
    const handle = await open(temporary, 'wx', 0o600); // keys' hashes and spend: not for every reader
    try {
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new CliError(`cannot write ${target}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 1, 'write_failed');
  }
  // The rename itself reaches the disk with the directory's entry.
  const dir = await open(directory, 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
