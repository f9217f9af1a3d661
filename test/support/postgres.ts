// A real PostgreSQL server for one test file: Debian's binaries (scripts/system-packages.sh),
// initdb in a temporary directory, a free loopback port and the unix socket in that directory,
// stopped (and its files removed) after the suite. initdb refuses to run as root, so as root the
// server runs as the `postgres` user the Debian package creates.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.ts';

const ROOT_DIR = '/usr/lib/postgresql';

/** The newest installed server's bin directory, or undefined. */
function binDir(): string | undefined {
  if (!existsSync(ROOT_DIR)) return undefined;
  const versions = readdirSync(ROOT_DIR)
    .filter((v) => existsSync(join(ROOT_DIR, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(ROOT_DIR, versions[0], 'bin');
}

/** Why the PostgreSQL tests cannot run here (undefined: they can). */
export function postgresUnavailable(): string | undefined {
  if (binDir() === undefined) return `PostgreSQL is not installed (no ${ROOT_DIR}/*/bin/initdb): run scripts/system-packages.sh`;
  if (process.getuid?.() === 0 && spawnSync('id', ['-u', 'postgres']).status !== 0) return 'running as root and there is no postgres user to run the server as';
  return undefined;
}

export interface PostgresServer {
  readonly port: number;
  /** The cluster's directory (postmaster.pid names the server's process). */
  readonly dataDir: string;
  /** A connection URL for one database on this server. */
  url(database?: string): string;
  /** A new, empty database: its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server (fast shutdown: clients are disconnected), keeping its files. */
  pause(): void;
  /** Starts it again on the same port and files. */
  resume(): void;
  /** Stops it and removes its files. */
  stop(): void;
}

let databases = 0;

export async function startPostgres(): Promise<PostgresServer> {
  const bin = binDir();
  if (bin === undefined) throw new Error(postgresUnavailable());
  const dir = mkdtempSync(join(tmpdir(), 'gateway-pg-'));
  const data = join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? (['runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]] as const) : ([join(bin, tool), args] as const);
    const result = spawnSync(command[0], command[1], { cwd: dir, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${tool} failed (${result.status}): ${result.stderr}${result.stdout}`);
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'gateway', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  // fsync off: the tests exercise the protocol and the gateway, not this disk's durability.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  const halt = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
  start();
  let running = true;
  // A test process that ends without afterAll (a crash, a timeout kill) leaves no server behind.
  const orphanGuard = () => {
    if (running)
      spawnSync(
        asRoot ? 'runuser' : join(bin, 'pg_ctl'),
        asRoot ? ['-u', 'postgres', '--', join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop'] : ['-D', data, '-m', 'immediate', 'stop'],
      );
  };
  process.once('exit', orphanGuard);
  const url = (database = 'postgres') => `postgres://gateway@127.0.0.1:${port}/${database}`;
  return {
    port,
    dataDir: data,
    url,
    async createDatabase() {
      const name = `gw_${process.pid}_${++databases}`;
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    pause() {
      if (!running) return;
      halt();
      running = false;
    },
    resume() {
      if (running) return;
      start();
      running = true;
    },
    stop() {
      if (running) halt();
      running = false;
      process.removeListener('exit', orphanGuard);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
