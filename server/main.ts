#!/usr/bin/env node
// gateway [--config <file>] | --validate <file> | --version
import { parseArgs } from 'node:util';
import { startGateway } from './app/start-gateway.ts';
import { ConfigError } from './config/config-error.ts';
import { chooseConfigFile, loadConfigFile } from './config/load-config.ts';
import { createLogger } from './observability/logger.ts';
import { SERVER_VERSION } from './version.ts';

const USAGE = `usage: gateway [--config <file>]      serve (default ./config.yaml, else the embedded demo config)
       gateway --validate <file>      check a configuration and exit
       gateway --version`;

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { config: { type: 'string' }, validate: { type: 'string' }, version: { type: 'boolean' }, help: { type: 'boolean' } },
  });
  if (values.help === true) return console.log(USAGE), 0;
  if (values.version === true) return console.log(SERVER_VERSION), 0;
  if (values.validate !== undefined) {
    const config = loadConfigFile(values.validate);
    console.log(`${values.validate}: OK (${config.models.size} models, ${config.pools.size} pools, ${config.configVersion})`);
    return 0;
  }
  const config = loadConfigFile(chooseConfigFile(values.config));
  const log = createLogger(config.logLevel);
  const starting = startGateway(config, { log });
  // Handlers go in before "gateway started" is logged: a supervisor may signal as soon as it sees it.
  const stop = (signal: string) => {
    log.info({ signal }, 'shutting down');
    starting.then((gateway) => gateway.close()).then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await starting;
  return -1; // keep serving
}

main().then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    if (error instanceof ConfigError) console.error(`gateway: invalid configuration\n${error.message}`);
    else if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('ERR_PARSE_ARGS')) console.error(`gateway: ${error.message}\n${USAGE}`);
    else console.error('gateway: failed to start:', error);
    process.exit(error instanceof ConfigError ? 2 : 1);
  },
);
