// gateway-admin config version: the running configuration's version and when it was loaded.
import type { Command } from 'commander';
import { getApiV1AdminConfigVersion } from '../../clients-ts/src/index.ts';
import { withConnection } from '../connection.ts';
import { call } from '../errors.ts';
import { fields, print, printJson } from '../output.ts';

export function registerConfig(program: Command): void {
  const config = program.command('config').description('the running configuration');
  config
    .command('version')
    .description('show the running configuration\'s version (a content hash) and when it was loaded')
    .action((_options: unknown, command: Command) => withConnection(command, async (connection) => {
      const version = await call(connection, getApiV1AdminConfigVersion({ client: connection.client }));
      if (connection.json) printJson(version);
      else print(fields([['config version', version.config_version], ['loaded at', version.loaded_at]]));
    }));
}
