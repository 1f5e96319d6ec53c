/**
 * A self-signed certificate for 127.0.0.1, made once per test process with the `openssl` command,
 * so tests can run real https servers. A Beans process trusts it when started with
 * `NODE_EXTRA_CA_CERTS=<cert>` (Node reads that variable at start-up, for fetch too).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const hasOpenssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;

export interface TestCertificate {
  /** PEM file of the certificate: the value for NODE_EXTRA_CA_CERTS. */
  certFile: string;
  cert: Buffer;
  key: Buffer;
}

let made: TestCertificate | undefined;

export function testCertificate(): TestCertificate {
  if (made) return made;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'beans-tls-'));
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  made = { certFile, cert: readFileSync(certFile), key: readFileSync(keyFile) };
  return made;
}
