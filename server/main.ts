#!/usr/bin/env node
// gateway [--config <file>] [--listen <host:port>] [--admin-listen <host:port>] | --validate <file> | --healthcheck <url> | --version
import { parseArgs } from 'node:util';
import { startGateway, type RunningGateway } from './app/start-gateway.ts';
import { StartError } from './app/start-error.ts';
import { ConfigError, formatProblem } from './config/config-error.ts';
import { chooseConfigFile, loadConfigFile } from './config/load-config.ts';
import { listenOverrides, type ListenOverrides } from './config/listen-overrides.ts';
import { probeHealth } from './healthcheck.ts';
import { createLogger, type Logger } from './observability/logger.ts';
import { SERVER_VERSION } from './version.ts';

const USAGE = `usage: gateway [--config <file>] [--listen <host:port>] [--admin-listen <host:port>]
                                      serve (default ./config.yaml, else the embedded demo config)
       gateway --validate <file>      check a configuration and exit
       gateway --healthcheck <url>    exit 0 if the URL answers 2xx (a container HEALTHCHECK without curl)
       gateway --version
environment: GATEWAY_CONFIG, GATEWAY_LISTEN, GATEWAY_ADMIN_LISTEN (a flag wins over its variable,
             both over the file)`;

/** Exit codes of a stop (README, "Limits and shutdown"); 2 is an invalid configuration. */
const EXIT_DRAINED = 0;
const EXIT_CUT = 3;
/** A second signal: 128 + the signal's number, as a shell reports a process the signal killed. */
const EXIT_AT_ONCE: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      config: { type: 'string' }, validate: { type: 'string' }, healthcheck: { type: 'string' }, version: { type: 'boolean' }, help: { type: 'boolean' },
      listen: { type: 'string' }, 'admin-listen': { type: 'string' },
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
  const config = loadConfigFile(configFile, { overrides });
  const log = createLogger(config.logLevel);
  const starting = startGateway(config, { log });
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
    starting.then((gateway) => gateway.close(deadlineMs, drainDelayMs)).then(
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
  // action would end the process: it re-reads the certificates (rotation), nothing else yet.
  // A start that fails is reported by main() below, not again here.
  process.on('SIGHUP', () => void starting.then((gateway) => reloadCertificates(gateway, configFile, overrides, log), () => undefined));
  await starting;
  return -1; // keep serving
}

/**
 * The configuration file is read again for its `tls:` and `admin_tls:` only; a set that does not
 * load (a file missing, a key not matching) is refused whole, in one log line naming no PEM text.
 */
function reloadCertificates(gateway: RunningGateway, file: string | undefined, overrides: ListenOverrides, log: Logger): void {
  const rest = 'the rest of the configuration is not re-read while serving; restart to apply it';
  let problems: string[];
  try {
    const next = loadConfigFile(file, { overrides });
    problems = gateway.renewTls({ tls: next.tls, adminTls: next.adminTls });
  } catch (error) {
    problems = error instanceof ConfigError ? error.problems.map(formatProblem) : [String(error)];
  }
  if (problems.length > 0) log.error({ signal: 'SIGHUP' }, `SIGHUP: new certificates refused, the old ones keep serving: ${problems.join('; ')}; ${rest}`);
  else log.info({ signal: 'SIGHUP' }, `SIGHUP: certificates re-read for new connections; ${rest}`);
}

main().then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    if (error instanceof ConfigError) console.error(`gateway: invalid configuration\n${error.message}`);
    else if (error instanceof Error && 'code' in error && typeof error.code === 'string' && error.code.startsWith('ERR_PARSE_ARGS')) console.error(`gateway: ${error.message}\n${USAGE}`);
    else if (error instanceof StartError) console.error(`gateway: ${error.message}`);
    else console.error('gateway: failed to start:', error);
    process.exit(error instanceof ConfigError ? 2 : 1);
  },
);
