import { randomBytes } from 'node:crypto';
import forge from 'node-forge';

/** PEM material for the local dev servers' TLS: a CA, a server pair (localhost), and one client pair. */
export interface DevCertificates {
  ca: string;
  serverKey: string;
  serverCert: string;
  clientKey: string;
  clientCert: string;
}

type Extension = Record<string, unknown>;

function certificate(
  commonName: string,
  publicKey: forge.pki.PublicKey,
  issuer: { name: forge.pki.CertificateField[]; key: forge.pki.PrivateKey } | null,
  extensions: Extension[],
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 30 * 86_400_000);
  const subject = [{ name: 'commonName', value: commonName }];
  cert.setSubject(subject);
  cert.setIssuer(issuer?.name ?? subject);
  cert.setExtensions(extensions);
  return cert;
}

/**
 * Generated at start, never stored: a CA that signs a server certificate (localhost / 127.0.0.1) and a client
 * certificate, so each side trusts exactly the other (the local PSP's mutual TLS; the local acquirer's TLS). SHA-256 signatures (OpenSSL refuses SHA-1).
 */
export function generateCertificates(): DevCertificates {
  const pair = () => forge.pki.rsa.generateKeyPair({ bits: 2048 });
  const caKeys = pair();
  const ca = certificate('Local dev CA', caKeys.publicKey, null, [
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true },
  ]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());
  const issuer = { name: ca.subject.attributes, key: caKeys.privateKey };
  const issue = (cn: string, extensions: Extension[]) => {
    const keys = pair();
    const cert = certificate(cn, keys.publicKey, issuer, [
      { name: 'basicConstraints', cA: false },
      ...extensions,
    ]);
    cert.sign(issuer.key, forge.md.sha256.create());
    return { key: forge.pki.privateKeyToPem(keys.privateKey), cert: forge.pki.certificateToPem(cert) };
  };
  const server = issue('localhost', [
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 2, value: 'localhost' },
        { type: 7, ip: '127.0.0.1' },
      ],
    },
  ]);
  const client = issue('gateway', [{ name: 'extKeyUsage', clientAuth: true }]);
  return {
    ca: forge.pki.certificateToPem(ca),
    serverKey: server.key,
    serverCert: server.cert,
    clientKey: client.key,
    clientCert: client.cert,
  };
}
