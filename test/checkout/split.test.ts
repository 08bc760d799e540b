import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/accounts/accounts.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { createRecipient, type RecipientBody, recipientBalance } from '../recipients/fixtures.js';
import { moveTo } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { countRows, linkInput, PAYER, type PixPaymentBody, sessionInput } from './fixtures.js';

let server: TestServer;
let platform: TestMerchant;
let ana: RecipientBody;

const db = () => server.runtime.platform.db;
const pay = (path: string) =>
  call<PixPaymentBody>('POST', `${server.url}/api/public${path}`, { body: PAYER });
const sale = (id: string) =>
  call<{ split: { recipientId: string | null; netCents: number }[]; status: string }>(
    'GET',
    `${server.url}/api/transactions/${id}`,
    { headers: platform.keys },
  );

beforeAll(async () => {
  server = await startServer({ workers: false });
  platform = await createMerchant(server, 'Marketplace');
  await updateAccount(db(), platform.accountId, { saleFeePercentE4: 10000, saleFeeFixed: 0 }); // 1 %
  ana = await createRecipient(server, platform, { name: 'Ana' });
});
afterAll(() => server?.close());

describe('split on payment links and checkout sessions', () => {
  it('a link keeps its split, and each sale paid through it is split so', async () => {
    const split = [{ recipientId: ana.id, percent: 30 }];
    const link = await call<{ slug: string; split: unknown }>('POST', `${server.url}/api/payment-links`, {
      headers: platform.keys,
      body: linkInput({ amountCents: 20000, split }),
    });
    expect(link.status, link.text).toBe(201);
    expect(link.body.split).toEqual(split);
    const before = await recipientBalance(server, platform, ana.id);
    const paying = await pay(`/pay/${link.body.slug}`);
    expect(paying.status, paying.text).toBe(201);
    await moveTo(server, platform, paying.body.saleId, 'PAGO');
    const made = await sale(paying.body.saleId);
    // 1 % of 20000 = 200, paid by the platform: 14000 − 200
    expect(made.body.split.map((p) => [p.recipientId, p.netCents])).toEqual([
      [ana.id, 6000],
      [null, 13800],
    ]);
    expect((await recipientBalance(server, platform, ana.id)).available - before.available).toBe(6000);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it('a checkout session keeps its split for its sale', async () => {
    const split = [{ recipientId: ana.id, amountCents: 1000, chargeFees: true }];
    const session = await call<{ id: string; split: unknown }>(
      'POST',
      `${server.url}/api/checkout/sessions`,
      {
        headers: platform.keys,
        body: sessionInput({ split }),
      },
    );
    expect(session.status, session.text).toBe(201);
    expect(session.body.split).toEqual(split);
    const before = await recipientBalance(server, platform, ana.id);
    const paying = await pay(`/checkout/${session.body.id}`);
    expect(paying.status, paying.text).toBe(201);
    await moveTo(server, platform, paying.body.saleId, 'PAGO');
    // 9980: the fee (100, 1 % rounded half-up) paid by Ana out of her 1000
    expect((await sale(paying.body.saleId)).body.split.map((p) => p.netCents)).toEqual([900, 8980]);
    expect((await recipientBalance(server, platform, ana.id)).available - before.available).toBe(900);
  });

  it('refuses, when it is made, a split some charge of the link could not take (400, nothing stored)', async () => {
    const links = await countRows(server, 'payment_links');
    const sessions = await countRows(server, 'checkout_sessions');
    const other = await createRecipient(server, await createMerchant(server, 'Outra'), { name: 'De outro' });
    const cases: [string, Record<string, unknown>, RegExp][] = [
      // an open amount from 1.00: 30.00 to Ana would be more than the smallest payment
      [
        '/api/payment-links',
        linkInput({ amountCents: undefined, split: [{ recipientId: ana.id, amountCents: 3000 }] }),
        /more than the charge's amount 100/,
      ],
      [
        '/api/payment-links',
        linkInput({ split: [{ recipientId: other.id, amountCents: 100 }] }),
        /not one of this account's/,
      ],
      [
        '/api/checkout/sessions',
        sessionInput({ split: [{ recipientId: ana.id, amountCents: 50, chargeFees: true }] }),
        /pays the fees/,
      ],
    ];
    for (const [path, body, message] of cases) {
      const res = await call<{ message: string }>('POST', `${server.url}${path}`, {
        headers: platform.keys,
        body,
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect(await countRows(server, 'payment_links')).toBe(links);
    expect(await countRows(server, 'checkout_sessions')).toBe(sessions);
  });
});
