#!/usr/bin/env node
// gateway-admin: the gateway's admin command-line tool, built on the generated TypeScript client
// (clients-ts). Exit codes: 0 done, 1 the call failed (unreachable, TLS, refused, not found),
// 2 the command line is wrong. With --json, a failure is one JSON object on stderr (errors.ts).
// Shipped three ways: run from the checkout, as dist/gateway-admin (build/build-cli.ts) and as the
// npm package in cli/package.json; the last two are bundles with package.json inlined.
import { Command, CommanderError } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import { registerConfig } from './commands/config.ts';
import { registerHooks } from './commands/hooks.ts';
import { registerInfo } from './commands/info.ts';
import { registerKeys } from './commands/keys.ts';
import { registerStats } from './commands/stats.ts';
import { registerStore } from './commands/store.ts';
import { registerTeams } from './commands/teams.ts';
import { registerUsage } from './commands/usage.ts';
import { addConnectionOptions } from './connection.ts';
import { CliError, errorJson, errorText } from './errors.ts';
import { CERT_FLAG, KEY_FLAG, TLS_FLAG_ALIASES } from './tls-flags.ts';

const VERSION = packageJson.version;
/** --json anywhere before `--` also makes failures JSON, even those commander finds while parsing. */
const jsonErrors = process.argv.slice(2, process.argv.includes('--') ? process.argv.indexOf('--') : undefined).includes('--json');

const program = new Command('gateway-admin')
  .description('Administer a running gateway through its admin API (default http://127.0.0.1:8081).')
  .version(VERSION, '-V, --version', 'print the version of gateway-admin')
  .exitOverride()
  .showHelpAfterError('(add --help for usage)')
  .configureHelp({ showGlobalOptions: true })
  .configureOutput(
    jsonErrors
      ? {
          // commander's usage errors as JSON too; its "(add --help for usage)" hint is left out.
          outputError: (message, write) => write(errorJson(message.trim().replace(/^error: /, ''), 'usage', 2)),
          writeErr: (text) => (text.startsWith('{') ? process.stderr.write(text) : true),
        }
      : { outputError: (message, write) => write(message.replace(/^error: /, 'gateway-admin: ')) },
  )
  .addHelpText(
    'after',
    `
Connection options can come from the environment: GATEWAY_ENDPOINT, GATEWAY_ADMIN_TOKEN.
Over mTLS: --endpoint https://host:8081 --ca-cert ca.pem ${CERT_FLAG} admin.pem ${KEY_FLAG} admin-key.pem
  (${TLS_FLAG_ALIASES[CERT_FLAG]} and ${TLS_FLAG_ALIASES[KEY_FLAG]} are other names for ${CERT_FLAG} and ${KEY_FLAG})
With --json a failure is one line on stderr: {"error":{"code","message","status"?,"exit_code"}}.
Exit codes: 0 done, 1 the call failed, 2 wrong command line.`,
  );
addConnectionOptions(program);
// Registered with .command() so each subcommand inherits exitOverride and showHelpAfterError.
registerInfo(program);
registerKeys(program);
registerUsage(program);
registerTeams(program);
registerConfig(program);
registerHooks(program);
registerStats(program);
registerStore(program);

// A function, not top-level await: the executable's bundle is CommonJS (build/build-cli.ts).
async function main(): Promise<void> {
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander has printed its message (or the help, or the version) already; but the help it
      // shows for a missing subcommand is not JSON, so --json says that failure itself.
      if (jsonErrors && error.code === 'commander.help' && error.exitCode !== 0) {
        process.stderr.write(errorJson('a command is missing: run without --json, or with --help, for the list', 'usage', 2));
      }
      process.exitCode = error.exitCode === 0 ? 0 : 2;
    } else if (error instanceof CliError) {
      process.stderr.write(jsonErrors ? errorJson(error.message, error.code, error.exitCode, error.status, error.problems) : errorText(error));
      process.exitCode = error.exitCode;
    } else {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      process.stderr.write(jsonErrors ? errorJson(`unexpected failure: ${detail}`, 'internal', 1) : `gateway-admin: unexpected failure: ${detail}\n`);
      process.exitCode = 1;
    }
  }
}

void main();
