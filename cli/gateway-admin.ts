#!/usr/bin/env node
// gateway-admin: the gateway's admin command-line tool, built on the generated TypeScript client
// (clients-ts). Exit codes: 0 done, 1 the call failed (unreachable, TLS, refused, not found),
// 2 the command line is wrong.
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { registerConfig } from './commands/config.ts';
import { registerHooks } from './commands/hooks.ts';
import { registerInfo } from './commands/info.ts';
import { registerKeys } from './commands/keys.ts';
import { registerStats } from './commands/stats.ts';
import { addConnectionOptions } from './connection.ts';
import { CliError } from './errors.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const program = new Command('gateway-admin')
  .description('Administer a running gateway through its admin API (default http://127.0.0.1:8081).')
  .version(VERSION, '-V, --version', 'print the version of gateway-admin')
  .exitOverride()
  .showHelpAfterError('(add --help for usage)')
  .configureHelp({ showGlobalOptions: true })
  .configureOutput({ outputError: (message, write) => write(message.replace(/^error: /, 'gateway-admin: ')) })
  .addHelpText('after', `
Connection options can come from the environment: GATEWAY_ENDPOINT, GATEWAY_ADMIN_TOKEN.
Over mTLS: --endpoint https://host:8081 --ca-cert ca.pem --client-cert admin.pem --client-key admin-key.pem
Exit codes: 0 done, 1 the call failed, 2 wrong command line.`);
addConnectionOptions(program);
// Registered with .command() so each subcommand inherits exitOverride and showHelpAfterError.
registerInfo(program);
registerKeys(program);
registerConfig(program);
registerHooks(program);
registerStats(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // commander has printed its message (or the help, or the version) already.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof CliError) {
    process.stderr.write(`gateway-admin: ${error.message}\n`);
    process.exitCode = error.exitCode;
  } else {
    process.stderr.write(`gateway-admin: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  }
}
