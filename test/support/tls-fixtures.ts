// A throwaway PKI for TLS and mTLS tests, made with the openssl command: a CA, a server
// certificate for 127.0.0.1/localhost and a client certificate, all signed by the CA.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=gateway test CA');
  const issueWithExt = (name: string, subject: string, ext: string, ca: [string, string]) => {
    ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
    writeFileSync(f(`${name}.ext`), ext);
    ssl('x509', '-req', '-in', `${name}.csr`, '-CA', ca[0], '-CAkey', ca[1], '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`);
  };
  issueWithExt('server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n', ['ca.crt', 'ca.key']);
  issueWithExt('client', '/CN=gateway-admin', 'extendedKeyUsage=clientAuth\n', ['ca.crt', 'ca.key']);
  // A client certificate from a CA the server does not trust.
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'other.key', '-out', 'other.crt', '-days', '2', '-subj', '/CN=stranger');
  const read = (name: string) => readFileSync(f(name), 'utf8');
  return {
    dir,
    files: { ca: f('ca.crt'), serverCert: f('server.crt'), serverKey: f('server.key'), clientCert: f('client.crt'), clientKey: f('client.key'), otherCert: f('other.crt'), otherKey: f('other.key') },
    pem: { ca: read('ca.crt'), clientCert: read('client.crt'), clientKey: read('client.key'), otherCert: read('other.crt'), otherKey: read('other.key') },
  };
}

/** One more server certificate for 127.0.0.1 from the fixtures' CA (a rotation's new pair); its file paths. */
export function issueServerPair(pki: TlsFixtures, name: string): { cert: string; key: string } {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: pki.dir, stdio: 'pipe' });
  ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=127.0.0.1');
  writeFileSync(join(pki.dir, `${name}.ext`), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`);
  return { cert: join(pki.dir, `${name}.crt`), key: join(pki.dir, `${name}.key`) };
}
