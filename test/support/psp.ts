import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DevPsp, type DevPspOptions } from '../../src/devpsp/server.js';
import { startServer, type TestServer } from './server.js';

/** The receiver key of the tests' merchant of record (an EVP key). */
export const RECEIVER_KEY = '7d9f0335-8dcc-4054-9bf9-0dbd61d36906';

/** A local PSP over mutual TLS, and the gateway settings that point PIX_PROCESSOR=bcb at it. */
export async function startPsp(
  options: DevPspOptions = {},
): Promise<{ psp: DevPsp; env: (port: number) => Record<string, string> }> {
  const psp = new DevPsp(options);
  const url = await psp.start();
  const dir = mkdtempSync(path.join(tmpdir(), 'gw-psp-'));
  const file = (name: string, pem: string) => {
    const p = path.join(dir, name);
    writeFileSync(p, pem, { mode: 0o600 });
    return p;
  };
  const files = {
    PIX_CERT: file('client.crt', psp.certs.clientCert),
    PIX_KEY: file('client.key', psp.certs.clientKey),
    PIX_CA: file('ca.crt', psp.certs.ca),
  };
  return {
    psp,
    env: (port) => ({
      PIX_PROCESSOR: 'bcb',
      PIX_API_URL: url,
      PIX_OAUTH_URL: `${url}/oauth/token`,
      PIX_CLIENT_ID: psp.clientId,
      PIX_CLIENT_SECRET: psp.clientSecret,
      PIX_KEY_RECEIVER: RECEIVER_KEY,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      PORT: String(port),
      ...files,
    }),
  };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A local PSP and a gateway (workers off) that charges through it with PIX_PROCESSOR=bcb. */
export async function startBcbGateway(): Promise<{ psp: DevPsp; server: TestServer }> {
  const started = await startPsp();
  const server = await startServer({ workers: false, env: started.env(await freePort()) });
  return { psp: started.psp, server };
}
