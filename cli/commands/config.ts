// gateway-admin config version | show | reload | validate | apply | versions | diff | rollback:
// the running configuration, changed without a restart, and its history.
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import {
  getApiV1AdminConfig,
  getApiV1AdminConfigDiff,
  getApiV1AdminConfigVersion,
  getApiV1AdminConfigVersions,
  getApiV1AdminConfigVersionsByV,
  postApiV1AdminConfigApply,
  postApiV1AdminConfigReload,
  postApiV1AdminConfigRollback,
  postApiV1AdminConfigValidate,
  type ConfigApplied,
} from '../../clients-ts/src/index.ts';
import { withConnection } from '../connection.ts';
import { call, CliError, configProblems } from '../errors.ts';
import { fields, print, printJson, table } from '../output.ts';

export function registerConfig(program: Command): void {
  const config = program.command('config').description('the running configuration: show, reload, validate, apply, versions, diff, rollback');
  config
    .command('version')
    .description("show the running configuration's version (a content hash) and when it was loaded")
    .action((_options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const version = await call(connection, getApiV1AdminConfigVersion({ client: connection.client }));
        if (connection.json) printJson(version);
        else
          print(
            fields([
              ['config version', version.config_version],
              ['loaded at', version.loaded_at],
            ]),
          );
      }),
    );

  config
    .command('show')
    .description('print the running configuration (or a kept version) as YAML, every secret masked ({ env } and { file } references as written)')
    .argument('[version]', 'a version as `config versions` lists it; default: the running configuration', version)
    .action((target: number | undefined, _options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const view =
          target === undefined
            ? await call(connection, getApiV1AdminConfig({ client: connection.client }))
            : await call(connection, getApiV1AdminConfigVersionsByV({ client: connection.client, path: { v: target } }));
        if (connection.json) printJson(view);
        else print(view.yaml);
      }),
    );

  config
    .command('reload')
    .description('make the gateway read its config file again and apply it (like SIGHUP); refused whole when anything is wrong')
    .action((_options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const applied = await call(connection, postApiV1AdminConfigReload({ client: connection.client }));
        if (connection.json) printJson(applied);
        else print(appliedText(applied, 'reloaded'));
      }),
    );

  config
    .command('validate')
    .description('check a configuration file against the running gateway (catalog, secrets, restart-only settings) without applying it')
    .argument('<file>', 'the config.yaml to check; - reads standard input')
    .action((file: string, _options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const verdict = await call(connection, postApiV1AdminConfigValidate({ client: connection.client, body: readConfig(file) as unknown as Blob }));
        if (connection.json) printJson(verdict);
        if (!verdict.valid) {
          if (connection.json) {
            process.exitCode = 1; // the verdict is the answer, on stdout; the exit code says it is not valid
            return;
          }
          throw configProblems(`${file} is not a valid configuration`, verdict.problems);
        }
        if (!connection.json) print(`${file}: valid`);
      }),
    );

  config
    .command('apply')
    .description("validate a configuration file, write it over the gateway's config file (atomically) and apply it")
    .argument('<file>', 'the config.yaml to apply; - reads standard input')
    .action((file: string, _options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const applied = await call(connection, postApiV1AdminConfigApply({ client: connection.client, body: readConfig(file) as unknown as Blob }));
        if (connection.json) printJson(applied);
        else print(appliedText(applied, 'applied'));
      }),
    );

  config
    .command('versions')
    .description('list the configurations applied, newest first: version, config version, when, by what')
    .action((_options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const list = await call(connection, getApiV1AdminConfigVersions({ client: connection.client }));
        if (connection.json) return printJson(list);
        print(
          table(
            ['version', 'config version', 'applied at', 'trigger', 'current'],
            list.data.map((v) => [String(v.version), v.config_version, v.applied_at, v.trigger, v.current ? '*' : '']),
          ),
        );
        print(
          list.stored
            ? `(kept in the store, the last ${list.kept})`
            : `(kept in memory for the life of the gateway process, the last ${list.kept}: set db_path to keep them across restarts)`,
        );
      }),
    );

  config
    .command('diff')
    .description("a unified diff between two versions' YAML (secrets masked); default: the running version against the one before it")
    .argument('[from]', 'the older version (as `config versions` lists it)', version)
    .argument('[to]', 'the newer version; default: the running one', version)
    .action((from: number | undefined, to: number | undefined, _options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const query = { ...(from !== undefined && { from }), ...(to !== undefined && { to }) };
        const diff = await call(connection, getApiV1AdminConfigDiff({ client: connection.client, query }));
        if (connection.json) printJson(diff);
        else print(diff.diff === '' ? `versions ${diff.from.version} and ${diff.to.version} are the same` : diff.diff);
      }),
    );

  config
    .command('rollback')
    .description("apply an earlier version's exact text again (default: the one before the running version), writing the config file like apply")
    .argument('[version]', 'the version to restore (as `config versions` lists it)', version)
    .action((target: number | undefined, _options: unknown, command: Command) =>
      withConnection(command, async (connection) => {
        const applied = await call(
          connection,
          postApiV1AdminConfigRollback({ client: connection.client, body: target === undefined ? {} : { version: target } }),
        );
        if (connection.json) printJson(applied);
        else print(appliedText(applied, 'rolled back'));
      }),
    );
}

function appliedText(applied: ConfigApplied, done: string): string {
  if (applied.unchanged) return `unchanged: the gateway already runs this configuration (version ${applied.version.version}, ${applied.config_version})`;
  return `${done}: version ${applied.version.version} (${applied.config_version}) serves new requests; it was ${applied.previous_config_version}`;
}

/** A configuration file's text, or `-` for standard input; unreadable: exit 1 with the reason. */
function readConfig(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file === '-' ? 'standard input' : file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 1, 'file_unreadable');
  }
}

/** A version number argument: a whole number from 1; anything else is a usage error. */
function version(value: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`expected a version number (1, 2, ...), got ${JSON.stringify(value)}`);
  return n;
}
