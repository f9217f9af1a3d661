// The connection options every command shares (--endpoint, --token, TLS and mTLS files, --json),
// checked before any request, and the admin client they make: the generated TypeScript client
// (clients-ts) sending through undici's fetch with an Agent that carries the TLS settings.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { Option, type Command } from 'commander';
import { Agent, fetch as undiciFetch } from 'undici';
import { createAdminClient, type Client } from '../clients-ts/src/index.ts';
import { usageError } from './errors.ts';

export const DEFAULT_ENDPOINT = 'http://127.0.0.1:8081';
/** How long one call may take, connect to last byte. */
const TIMEOUT_MS = 30_000;

interface ConnectionFlags {
  endpoint: string;
  token?: string;
  insecure?: boolean;
  caCert?: string;
  clientCert?: string;
  clientKey?: string;
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
  close(): Promise<void>;
}

/** Adds the shared options to the program; subcommands read them with optsWithGlobals(). */
export function addConnectionOptions(program: Command): Command {
  return program
    .addOption(new Option('--endpoint <url>', 'admin plane URL').env('GATEWAY_ENDPOINT').default(DEFAULT_ENDPOINT))
    .addOption(new Option('--token <token>', 'admin token, sent as x-admin-token').env('GATEWAY_ADMIN_TOKEN'))
    .option('--insecure', "do not verify the admin plane's TLS certificate (testing only; not with --ca-cert)")
    .option('--ca-cert <file>', "PEM CA certificate that signed the admin plane's TLS certificate")
    .option('--client-cert <file>', 'PEM client certificate for mTLS (needs --client-key)')
    .option('--client-key <file>', 'PEM private key of --client-cert')
    .option('--json', 'print the answer as JSON on stdout (the admin API body, unchanged)');
}

/** Checks the shared options and makes the client; every problem is a usage error (exit 2). */
export function connect(command: Command): Connection {
  const flags = command.optsWithGlobals<ConnectionFlags>();
  if (flags.token === '') delete flags.token; // GATEWAY_ADMIN_TOKEN= means no token
  const endpoint = parseEndpoint(flags.endpoint);
  const https = endpoint.startsWith('https:');
  if (flags.insecure === true && flags.caCert !== undefined) {
    throw usageError('--insecure and --ca-cert contradict each other (--ca-cert verifies the admin plane\'s certificate, --insecure skips that): pass one of them');
  }
  if ((flags.clientCert === undefined) !== (flags.clientKey === undefined)) {
    throw usageError(flags.clientCert === undefined ? '--client-key needs --client-cert (the certificate of that key)' : '--client-cert needs --client-key (the private key of that certificate)');
  }
  const tlsFlags = [flags.insecure === true && '--insecure', flags.caCert !== undefined && '--ca-cert', flags.clientCert !== undefined && '--client-cert'].filter(Boolean);
  if (!https && tlsFlags.length > 0) {
    throw usageError(`${tlsFlags.join(', ')}: TLS options need an https:// endpoint, and ${endpoint} is plain HTTP: use https:// in --endpoint (or GATEWAY_ENDPOINT)`);
  }
  const ca = flags.caCert === undefined ? undefined : readCertificate('--ca-cert', flags.caCert);
  const cert = flags.clientCert === undefined ? undefined : readCertificate('--client-cert', flags.clientCert);
  const key = flags.clientKey === undefined ? undefined : readKey(flags.clientKey);
  if (cert !== undefined && key !== undefined) {
    try {
      createSecureContext({ cert, key });
    } catch {
      throw usageError(`--client-key ${flags.clientKey} is not the private key of --client-cert ${flags.clientCert}`);
    }
  }
  const agent = new Agent({ connect: { ...(ca !== undefined && { ca }), ...(cert !== undefined && { cert, key }), rejectUnauthorized: flags.insecure !== true } });
  // The generated client hands over a global Request; undici's fetch takes its own, so copy it.
  const send = async (request: Request): Promise<Response> => {
    const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
    const response = await undiciFetch(request.url, { method: request.method, headers: [...request.headers], body, dispatcher: agent, signal: AbortSignal.timeout(TIMEOUT_MS) });
    return response as unknown as Response;
  };
  const source = rootOf(command).getOptionValueSource('token');
  return {
    endpoint,
    client: createAdminClient({ endpoint, token: flags.token, fetch: send }),
    tokenSource: flags.token === undefined ? undefined : source === 'env' ? 'GATEWAY_ADMIN_TOKEN' : '--token',
    tls: { caCert: flags.caCert, clientCert: flags.clientCert, insecure: flags.insecure === true },
    json: flags.json === true,
    close: () => agent.close(),
  };
}

/** Runs one command's work with a connection, closing it afterwards so the process can exit. */
export async function withConnection(command: Command, work: (connection: Connection) => Promise<void>): Promise<void> {
  const connection = connect(command);
  try {
    await work(connection);
  } finally {
    await connection.close();
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

function readKey(path: string): string {
  const pem = readFile('--client-key', path);
  try {
    createPrivateKey(pem);
  } catch {
    throw usageError(`the --client-key file ${path} is not a PEM private key (unencrypted)`);
  }
  return pem;
}

function rootOf(command: Command): Command {
  let root = command;
  while (root.parent !== null) root = root.parent;
  return root;
}
