// Certificates for mTLS on loopback, made at test time with the system's `openssl` (nothing is kept in the repo):
// a test CA, the fake PSP's server certificate (localhost / 127.0.0.1), the app's client certificate, the PSP's
// own client certificate for webhook callbacks, and a client certificate from a foreign CA the PSP must refuse.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

export type CertificatePair = { certPath: string; keyPath: string; cert: string; key: string }

export type TestCertificates = {
  dir: string
  caPath: string
  ca: string
  server: CertificatePair
  /** What the app presents to the PSP (PIX_CERT / PIX_KEY). */
  appClient: CertificatePair
  /** What the PSP presents when it calls the app's webhook. */
  pspClient: CertificatePair
  /** Signed by another CA: the PSP must refuse it. */
  foreignClient: CertificatePair
  foreignCaPath: string
  remove(): void
}

function openssl(args: string[], cwd: string) {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] })
}

function newKey(dir: string, name: string): string {
  const file = path.join(dir, `${name}.key`)
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file], dir)
  return file
}

function newCa(dir: string, name: string, subject: string): { certPath: string; keyPath: string } {
  const keyPath = newKey(dir, name)
  const certPath = path.join(dir, `${name}.pem`)
  openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      keyPath,
      '-subj',
      subject,
      '-days',
      '2',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      certPath,
    ],
    dir,
  )
  return { certPath, keyPath }
}

function newLeaf(
  dir: string,
  name: string,
  subject: string,
  ca: { certPath: string; keyPath: string },
  extensions: string,
): CertificatePair {
  const keyPath = newKey(dir, name)
  const csr = path.join(dir, `${name}.csr`)
  const ext = path.join(dir, `${name}.ext`)
  const certPath = path.join(dir, `${name}.pem`)
  writeFileSync(ext, extensions)
  openssl(['req', '-new', '-key', keyPath, '-subj', subject, '-out', csr], dir)
  const serial = `0x${Date.now().toString(16)}${Math.floor(Math.random() * 1e6).toString(16)}`
  openssl(
    [
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      ca.certPath,
      '-CAkey',
      ca.keyPath,
      '-set_serial',
      serial,
      '-days',
      '2',
      '-extfile',
      ext,
      '-out',
      certPath,
    ],
    dir,
  )
  return { certPath, keyPath, cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') }
}

const clientExtensions = 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n'

export function createTestCertificates(): TestCertificates {
  const dir = mkdtempSync(path.join(tmpdir(), 'fake-psp-certs-'))
  const ca = newCa(dir, 'ca', '/CN=Fake PSP Test CA')
  const server = newLeaf(
    dir,
    'server',
    '/CN=localhost',
    ca,
    'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n' +
      'subjectAltName=DNS:localhost,IP:127.0.0.1\n',
  )
  const appClient = newLeaf(dir, 'app-client', '/CN=app-client', ca, clientExtensions)
  const pspClient = newLeaf(dir, 'psp-client', '/CN=psp-client', ca, clientExtensions)
  const foreignCa = newCa(dir, 'foreign-ca', '/CN=Foreign Test CA')
  const foreignClient = newLeaf(dir, 'foreign-client', '/CN=foreign-client', foreignCa, clientExtensions)
  return {
    dir,
    caPath: ca.certPath,
    ca: readFileSync(ca.certPath, 'utf8'),
    server,
    appClient,
    pspClient,
    foreignClient,
    foreignCaPath: foreignCa.certPath,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}
