import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DevPsp } from './server.js';

/** The receiver key of the local PSP's merchant of record (an EVP key). */
export const DEV_RECEIVER_KEY = '7d9f0335-8dcc-4054-9bf9-0dbd61d36906';

/**
 * The settings that point a gateway's PIX_PROCESSOR=bcb at a started local PSP, its client certificate, key and
 * CA written as files under `dir` (readable by their owner only).
 */
export function gatewaySettingsFor(psp: DevPsp, url: string, dir: string) {
  mkdirSync(dir, { recursive: true });
  const file = (name: string, pem: string) => {
    const p = path.join(dir, name);
    writeFileSync(p, pem, { mode: 0o600 });
    return p;
  };
  return {
    PIX_PROCESSOR: 'bcb',
    PIX_API_URL: url,
    PIX_OAUTH_URL: `${url}/oauth/token`,
    PIX_CLIENT_ID: psp.clientId,
    PIX_CLIENT_SECRET: psp.clientSecret,
    PIX_CERT: file('client.crt', psp.certs.clientCert),
    PIX_KEY: file('client.key', psp.certs.clientKey),
    PIX_CA: file('ca.crt', psp.certs.ca),
    PIX_KEY_RECEIVER: DEV_RECEIVER_KEY,
  };
}
