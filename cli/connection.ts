// The connection options every command shares (--endpoint, --token, TLS and mTLS files, --json),
// checked before any request, and the admin client they make: the generated TypeScript client
// (clients-ts) sending through node:https with the TLS settings (node-fetch.ts).
// The mTLS flags: --cert-file and --key-file, with their first names as hidden aliases (tls-flags.ts).
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { Option, type Command } from 'commander';
import { createAdminClient, type Client } from '../clients-ts/src/index.ts';
import { usageError } from './errors.ts';
import { nodeFetch } from './node-fetch.ts';
import { CERT_FLAG, KEY_FLAG, TLS_FLAG_ALIASES as ALIASES } from './tls-flags.ts';

export const DEFAULT_ENDPOINT = 'http://127.0.0.1:8081';
/** How long one call may take, connect to last byte. */
const TIMEOUT_MS = 30_000;

interface ConnectionFlags {
  endpoint: string;
  token?: string;
  insecure?: boolean;
  caCert?: string;
  certFile?: string;
  keyFile?: string;
  clientCert?: string; // alias of certFile
  clientKey?: string; // alias of keyFile
  json?: boolean;
}

export interface Connection {
  /** The admin plane's base URL, without a trailing slash. */
  readonly endpoint: string;
  readonly client: Client;
  /** Where the token came from, for error messages; undefined: no token. */
  readonly tokenSource: '--token' | 'GATEWAY_ADMIN_TOKEN' | undefined;
  /** The TLS file paths given, for error messages. */
  readonly tls: { readonly caCert?: string | undefined; readonly clientCert?: string | undefined; readonly insecure: boolean };
  readonly json: boolean;
  close(): void;
}

/** Adds the shared options to the program; subcommands read them with optsWithGlobals(). */
export function addConnectionOptions(program: Command): Command {
  return program
    .addOption(new Option('--endpoint <url>', 'admin plane URL').env('GATEWAY_ENDPOINT').default(DEFAULT_ENDPOINT))
    .addOption(new Option('--token <token>', 'admin token, sent as x-admin-token').env('GATEWAY_ADMIN_TOKEN'))
    .option('--insecure', "do not verify the admin plane's TLS certificate (testing only; not with --ca-cert)")
    .option('--ca-cert <file>', "PEM CA certificate that signed the admin plane's TLS certificate")
    .option(`${CERT_FLAG} <file>`, `PEM client certificate for mTLS (needs ${KEY_FLAG}; alias ${ALIASES[CERT_FLAG]})`)
    .option(`${KEY_FLAG} <file>`, `PEM private key of ${CERT_FLAG} (alias ${ALIASES[KEY_FLAG]})`)
    .addOption(new Option(`${ALIASES[CERT_FLAG]} <file>`).hideHelp())
    .addOption(new Option(`${ALIASES[KEY_FLAG]} <file>`).hideHelp())
    .option('--json', 'print the answer as JSON on stdout (the admin API body, unchanged); errors as one JSON object on stderr');
}

/** Checks the shared options and makes the client; every problem is a usage error (exit 2). */
export function connect(command: Command): Connection {
  const flags = command.optsWithGlobals<ConnectionFlags>();
  if (flags.token === '') delete flags.token; // GATEWAY_ADMIN_TOKEN= means no token
  const endpoint = parseEndpoint(flags.endpoint);
  const https = endpoint.startsWith('https:');
  if (flags.insecure === true && flags.caCert !== undefined) {
    throw usageError(
      "--insecure and --ca-cert contradict each other (--ca-cert verifies the admin plane's certificate, --insecure skips that): pass one of them",
    );
  }
  const certFile = aliased(flags.certFile, flags.clientCert, CERT_FLAG);
  const keyFile = aliased(flags.keyFile, flags.clientKey, KEY_FLAG);
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw usageError(
      certFile === undefined
        ? `${keyFile!.flag} needs ${CERT_FLAG} (the certificate of that key)`
        : `${certFile.flag} needs ${KEY_FLAG} (the private key of that certificate)`,
    );
  }
  const tlsFlags = [flags.insecure === true && '--insecure', flags.caCert !== undefined && '--ca-cert', certFile?.flag].filter(Boolean);
  if (!https && tlsFlags.length > 0) {
    throw usageError(
      `${tlsFlags.join(', ')}: TLS options need an https:// endpoint, and ${endpoint} is plain HTTP: use https:// in --endpoint (or GATEWAY_ENDPOINT)`,
    );
  }
  const ca = flags.caCert === undefined ? undefined : readCertificate('--ca-cert', flags.caCert);
  const cert = certFile === undefined ? undefined : readCertificate(certFile.flag, certFile.path);
  const key = keyFile === undefined ? undefined : readKey(keyFile.flag, keyFile.path);
  if (cert !== undefined && key !== undefined) {
    try {
      createSecureContext({ cert, key });
    } catch {
      throw usageError(`${keyFile!.flag} ${keyFile!.path} is not the private key of ${certFile!.flag} ${certFile!.path}`);
    }
  }
  const sender = nodeFetch({ ca, cert, key, rejectUnauthorized: flags.insecure !== true }, TIMEOUT_MS);
  const source = rootOf(command).getOptionValueSource('token');
  return {
    endpoint,
    client: createAdminClient({ endpoint, token: flags.token, fetch: sender.fetch }),
    tokenSource: flags.token === undefined ? undefined : source === 'env' ? 'GATEWAY_ADMIN_TOKEN' : '--token',
    tls: { caCert: flags.caCert, clientCert: certFile?.path, insecure: flags.insecure === true },
    json: flags.json === true,
    close: sender.close,
  };
}

/** Runs one command's work with a connection, closing it afterwards so the process can exit. */
export async function withConnection(command: Command, work: (connection: Connection) => Promise<void>): Promise<void> {
  const connection = connect(command);
  try {
    await work(connection);
  } finally {
    connection.close();
  }
}

function parseEndpoint(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`--endpoint ${JSON.stringify(text)} is not a URL: give one like ${DEFAULT_ENDPOINT} or https://gateway.internal:8081`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError(`--endpoint ${JSON.stringify(text)} must start with http:// or https://`);
  return text.replace(/\/+$/, '');
}

function readFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw usageError(`cannot read the ${flag} file ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

function readCertificate(flag: string, path: string): string {
  const pem = readFile(flag, path);
  try {
    new X509Certificate(pem);
  } catch {
    throw usageError(`the ${flag} file ${path} is not a PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  return pem;
}

function readKey(flag: string, path: string): string {
  const pem = readFile(flag, path);
  try {
    createPrivateKey(pem);
  } catch {
    throw usageError(`the ${flag} file ${path} is not a PEM private key (unencrypted)`);
  }
  return pem;
}

/** A flag given under its name or its alias (not both), with the name used, for messages. */
function aliased(value: string | undefined, aliasValue: string | undefined, flag: keyof typeof ALIASES): { path: string; flag: string } | undefined {
  if (value !== undefined && aliasValue !== undefined) throw usageError(`${ALIASES[flag]} is another name for ${flag}: pass one of them`);
  if (value !== undefined) return { path: value, flag };
  return aliasValue === undefined ? undefined : { path: aliasValue, flag: ALIASES[flag] };
}

function rootOf(command: Command): Command {
  let root = command;
  while (root.parent !== null) root = root.parent;
  return root;
}
