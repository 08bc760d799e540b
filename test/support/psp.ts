import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DevPsp, type DevPspOptions } from '../../src/devpsp/server.js';
import { DEV_RECEIVER_KEY, gatewaySettingsFor } from '../../src/devpsp/settings.js';
import { PixApiClient } from '../../src/payment-standards/pix-api-client.js';
import { BcbProcessor } from '../../src/pix/adapter.js';
import { cancelExpiredCharges } from '../../src/sales/charges.js';
import { freePort } from './ports.js';
import { startServer, type TestServer } from './server.js';

/** The receiver key of the tests' merchant of record (an EVP key). */
export const RECEIVER_KEY = DEV_RECEIVER_KEY;

/** A local PSP over mutual TLS, and the gateway settings that point PIX_PROCESSOR=bcb at it. */
export async function startPsp(
  options: DevPspOptions = {},
): Promise<{ psp: DevPsp; env: (port: number) => Record<string, string> }> {
  const psp = new DevPsp(options);
  const url = await psp.start();
  const settings = gatewaySettingsFor(psp, url, mkdtempSync(path.join(tmpdir(), 'gw-psp-')));
  return {
    psp,
    env: (port) => ({ ...settings, PUBLIC_URL: `http://127.0.0.1:${port}`, PORT: String(port) }),
  };
}

/** A local PSP and a gateway (workers off) that charges through it with PIX_PROCESSOR=bcb. */
export async function startBcbGateway(
  env: Record<string, string> = {},
): Promise<{ psp: DevPsp; server: TestServer }> {
  const started = await startPsp();
  const server = await startServer({ workers: false, env: { ...started.env(await freePort()), ...env } });
  return { psp: started.psp, server };
}

/**
 * A local PSP and a gateway that reconciles with it (PIX_PROCESSOR=bcb, its workers on: they run the scheduled
 * reconciliation runs and those asked for from the console).
 */
export async function startReconcilingGateway(): Promise<{ psp: DevPsp; server: TestServer }> {
  const started = await startPsp();
  const server = await startServer({ env: started.env(await freePort()) });
  return { psp: started.psp, server };
}

/** The charge expiry worker's round with the bcb processor the workers build: how many sales it cancelled. */
export async function bcbExpiryRound(server: TestServer): Promise<number> {
  const { db, queue, config } = server.runtime.platform;
  const client = new PixApiClient(config.bcb!, 2000);
  try {
    const bcb = new BcbProcessor(client, config.bcb!, db, queue);
    return await cancelExpiredCharges(db, queue, new Map([[bcb.name, bcb]]));
  } finally {
    await client.close();
  }
}
