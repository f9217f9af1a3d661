// A throwaway PKI for TLS and mTLS tests, made with the openssl command: a CA, a server
// certificate for 127.0.0.1/localhost and a client certificate, all signed by the CA.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';

export interface TlsFixtures {
  readonly dir: string;
  /** File paths; the PEM text of each is in `pem`. */
  readonly files: { ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string; otherCert: string; otherKey: string };
  readonly pem: { ca: string; clientCert: string; clientKey: string; otherCert: string; otherKey: string };
}

export function makeTlsFixtures(): TlsFixtures {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-tls-'));
  const f = (name: string) => join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '2',
    '-subj',
    '/CN=gateway test CA',
  );
  const issueWithExt = (name: string, subject: string, ext: string, ca: [string, string]) => {
    ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
    writeFileSync(f(`${name}.ext`), ext);
    ssl('x509', '-req', '-in', `${name}.csr`, '-CA', ca[0], '-CAkey', ca[1], '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`);
  };
  issueWithExt('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n', ['ca.crt', 'ca.key']);
  issueWithExt('client', '/CN=gateway-admin', 'extendedKeyUsage=clientAuth\n', ['ca.crt', 'ca.key']);
  // A client certificate from a CA the server does not trust.
  ssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'other.key',
    '-out',
    'other.crt',
    '-days',
    '2',
    '-subj',
    '/CN=stranger',
  );
  const read = (name: string) => readFileSync(f(name), 'utf8');
  return {
    dir,
    files: {
      ca: f('ca.crt'),
      serverCert: f('server.crt'),
      serverKey: f('server.key'),
      clientCert: f('client.crt'),
      clientKey: f('client.key'),
      otherCert: f('other.crt'),
      otherKey: f('other.key'),
    },
    pem: { ca: read('ca.crt'), clientCert: read('client.crt'), clientKey: read('client.key'), otherCert: read('other.crt'), otherKey: read('other.key') },
  };
}

/** One more server certificate for 127.0.0.1 from the fixtures' CA (a rotation's new pair); its file paths. */
export function issueServerPair(pki: TlsFixtures, name: string): { cert: string; key: string } {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: pki.dir, stdio: 'pipe' });
  ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=127.0.0.1');
  writeFileSync(join(pki.dir, `${name}.ext`), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  ssl(
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
  );
  return { cert: join(pki.dir, `${name}.crt`), key: join(pki.dir, `${name}.key`) };
}

/** A bare TLS connection asking GET /healthz (with a client certificate or not): 'ok' when answered, else how it ended. */
export function tlsHealthz(url: string, options: { ca: string; cert?: string; key?: string }): Promise<'ok' | string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port), ...options });
    // TLS 1.3: the server judges the client certificate after the client's side of the handshake
    // ends, so a refusal arrives as an alert on the first read, not as a failed connect.
    let answer = '';
    socket.once('secureConnect', () => socket.write('GET /healthz HTTP/1.1\r\nhost: gateway\r\nconnection: close\r\n\r\n'));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.once('end', () => resolve(answer.startsWith('HTTP/1.1 200') ? 'ok' : `answered: ${answer.slice(0, 40)}`));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}
