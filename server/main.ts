#!/usr/bin/env node
// gateway [--config <file>] [--listen <host:port>] [--admin-listen <host:port>] | --validate <file> | --healthcheck <url> | --version | store migrate ...
import { parseArgs } from 'node:util';
import { startGateway } from './app/start-gateway.ts';
import { StartError } from './app/start-error.ts';
import { ConfigError } from './config/config-error.ts';
import { chooseConfigFile, loadConfigFile, loadConfigSource } from './config/load-config.ts';
import { listenOverrides } from './config/listen-overrides.ts';
import { probeHealth } from './healthcheck.ts';
import { createLogger } from './shared/logger.ts';
import { SERVER_VERSION } from './version.ts';

const USAGE = `usage: gateway [--config <file>] [--listen <host:port>] [--admin-listen <host:port>]
                                      serve (default ./config.yaml, else the embedded demo config)
       gateway --validate <file>      check a configuration and exit
       gateway --healthcheck <url>    exit 0 if the URL answers 2xx (a container HEALTHCHECK without curl)
       gateway --version
       gateway store migrate --from <db_path> --to <database_url | env:VARIABLE>
                                      copy the embedded store into PostgreSQL (see gateway store --help)
environment: GATEWAY_CONFIG, GATEWAY_LISTEN, GATEWAY_ADMIN_LISTEN (a flag wins over its variable,
             both over the file)`;

/** Exit codes of a stop (README, "Limits and shutdown"); 2 is an invalid configuration. */
const EXIT_DRAINED = 0;
const EXIT_CUT = 3;
/** A second signal: 128 + the signal's number, as a shell reports a process the signal killed. */
const EXIT_AT_ONCE: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

async function main(): Promise<number> {
  if (process.argv[2] === 'store') return (await import('./store-command.ts')).runStoreCommand(process.argv.slice(3));
  const { values } = parseArgs({
    options: {
      config: { type: 'string' },
      validate: { type: 'string' },
      healthcheck: { type: 'string' },
      version: { type: 'boolean' },
      help: { type: 'boolean' },
      listen: { type: 'string' },
      'admin-listen': { type: 'string' },
    },
  });
  const overrides = listenOverrides({ listen: values.listen, adminListen: values['admin-listen'] }, process.env);
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  if (values.version === true) {
    console.log(SERVER_VERSION);
    return 0;
  }
  if (values.healthcheck !== undefined) return probeHealth(values.healthcheck);
  if (values.validate !== undefined) {
    const config = loadConfigFile(values.validate, { overrides });
    console.log(`${values.validate}: OK (${config.models.size} models, ${config.pools.size} pools, ${config.configVersion})`);
    return 0;
  }
  const configFile = chooseConfigFile(values.config ?? (process.env.GATEWAY_CONFIG || undefined));
  const { config, text } = loadConfigSource(configFile, { overrides });
  const log = createLogger(config.logLevel);
  const starting = startGateway(config, { log, configText: text, loadOptions: { overrides } });
  // Handlers go in before "gateway started" is logged: a supervisor may signal as soon as it sees it.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second signal: stopping at once');
      process.exit(EXIT_AT_ONCE[signal] ?? 1);
    }
    stopping = true;
    const { shutdownTimeoutMs: deadlineMs, drainDelayMs } = config.server;
    // /readyz says 503 from here; after drainDelayMs of serving as usual, requests in flight get deadlineMs.
    log.info({ signal, deadlineMs, drainDelayMs }, 'shutting down');
    starting
      .then((gateway) => gateway.close(deadlineMs, drainDelayMs))
      .then(
        ({ cut }) => {
          if (cut === 0) log.info({ cut }, 'shutdown complete: every request in flight finished');
          else log.warn({ cut, deadlineMs }, 'shutdown complete: the deadline cut connections still in flight');
          process.exit(cut === 0 ? EXIT_DRAINED : EXIT_CUT);
        },
        (error: unknown) => {
          log.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // `systemctl reload` (ExecReload in deploy/systemd/gateway.service) sends SIGHUP, whose default
  // action would end the process: the configuration file, the catalog and the secrets they name
  // are read again and applied to new requests (certificates included), or refused whole in one
  // log line while the running configuration keeps serving (app/config-control.ts).
  // A start that fails is reported by main() below, not again here.
  process.on(
    'SIGHUP',
    () =>
      void starting
        .then(
          (gateway) => gateway.configControl.reloadFromFile('sighup'),
          () => undefined,
        )
        .catch((error: unknown) => log.error({ err: error, signal: 'SIGHUP' }, 'SIGHUP: reload failed')),
  );
  await starting;
  return -1; // keep serving
}

main().then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    if (error instanceof ConfigError) console.error(`gateway: invalid configuration\n${error.message}`);
    else if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('ERR_PARSE_ARGS'))
      console.error(`gateway: ${error.message}\n${USAGE}`);
    else if (error instanceof StartError) console.error(`gateway: ${error.message}`);
    else console.error('gateway: failed to start:', error);
    process.exit(error instanceof ConfigError ? 2 : 1);
  },
);
