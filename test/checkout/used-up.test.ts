/**
 * A link whose every use is paid or held by a payment under way turns a new payer away before anything is opened
 * at the processor: no charge left behind at the PSP for a sale that was never stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevPsp } from '../../src/devpsp/server.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startBcbGateway } from '../support/psp.js';
import type { TestServer } from '../support/server.js';
import { createLink, PAYER, type PixPaymentBody } from './fixtures.js';

let psp: DevPsp;
let server: TestServer;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ psp, server } = await startBcbGateway());
  merchant = await createMerchant(server);
});
afterAll(async () => {
  await server?.close();
  await psp?.close();
});

const cobsOpened = () => psp.state.log.filter((l) => /^PUT \/cobv?\//.test(l)).length;

describe('a one-use link held by a payment under way', () => {
  it('refuses the next payer with 410 and opens nothing at the PSP', async () => {
    const link = await createLink(server, merchant, { maxUses: 1 });
    const first = await call<PixPaymentBody>('POST', `${server.url}/api/public/pay/${link.slug}`, {
      body: PAYER,
    });
    expect(first.status, first.text).toBe(201);
    const opened = cobsOpened();
    for (let i = 0; i < 3; i++) {
      const other = await call<{ error: string; message: string }>(
        'POST',
        `${server.url}/api/public/pay/${link.slug}`,
        { body: { ...PAYER, name: `Outro ${i}`, document: '111.444.777-35' } },
      );
      expect(other.status, other.text).toBe(410);
      expect(other.body).toEqual({
        error: 'GONE',
        message: 'This payment link has been used up: its uses are taken by payments made or in progress',
      });
    }
    expect(cobsOpened()).toBe(opened);
    // the first payer reloading their page still gets their own charge
    const again = await call<PixPaymentBody>('POST', `${server.url}/api/public/pay/${link.slug}`, {
      body: { ...PAYER, payerToken: first.body.payerToken },
    });
    expect(again.status, again.text).toBe(201);
    expect(again.body.saleId).toBe(first.body.saleId);
  });
});
