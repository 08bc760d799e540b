/**
 * One admission for every charge (decisions.md Part 6): the charge's own checks (amounts, documents, split, the
 * method's fields) come before the risk rules. A request they refuse is answered with their error and nothing is
 * stored, even when a risk rule would block its buyer; a blocked request that passes them is stored refused
 * (RECUSADO, RISK_BLOCKED), on the API's PIX and boleto charges, a payer's page, and the sandbox's sale route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, boletoInput, spDay } from '../boletos/fixtures.js';
import { createLink, PAYER } from '../checkout/fixtures.js';
import { createRecipient } from '../recipients/fixtures.js';
import { CUSTOMER, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { createOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let merchant: TestMerchant;
let inactiveRecipient: string;

const BLOCKED = 'bloqueado@example.com';

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
  const risk = await createOperator(server, 'risk');
  const rule = await call('POST', `${server.url}/api/ops/risk-rules`, {
    headers: risk.ops,
    body: { name: 'Comprador bloqueado', when: { emailIn: [BLOCKED] }, action: 'block' },
  });
  expect(rule.status, rule.text).toBe(201);
  const recipient = await createRecipient(server, merchant);
  const off = await call('PATCH', `${server.url}/api/recipients/${recipient.id}`, {
    headers: merchant.keys,
    body: { active: false },
  });
  expect(off.status, off.text).toBe(200);
  inactiveRecipient = recipient.id;
});
afterAll(() => server?.close());

const salesCount = async () =>
  (
    await server.runtime.platform.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sales WHERE account_id = $1',
      [merchant.accountId],
    )
  )[0]!.n;

const blockedBuyer = { ...CUSTOMER, email: BLOCKED };

describe('the charge’s own checks before the risk rules', () => {
  it('API PIX and boleto charges the charge itself refuses are 400 with its reason, nothing stored', async () => {
    const refused: [string, Record<string, unknown>, RegExp][] = [
      [
        'PIX split to an inactive recipient',
        saleInput({
          customer: blockedBuyer,
          split: [{ recipientId: inactiveRecipient, amountCents: 1000 }],
        }),
        /inactive/,
      ],
      [
        'PIX split above the amount',
        saleInput({
          customer: blockedBuyer,
          split: [{ recipientId: inactiveRecipient, amountCents: 99_999 }],
        }),
        /split/,
      ],
      [
        'boleto due in the past',
        boletoInput({ customer: { ...blockedBuyer, address: ADDRESS } }, { dueDate: '2020-01-01' }),
        /dueDate/,
      ],
      [
        'boleto payer in no UF',
        boletoInput({ customer: { ...blockedBuyer, address: { ...ADDRESS, state: 'XX' } } }),
        /state must be a UF/,
      ],
      [
        'boleto discount above the amount',
        boletoInput(
          { customer: { ...blockedBuyer, address: ADDRESS } },
          { discount: { amountCents: 20_000, until: spDay(1) } },
        ),
        /discount/,
      ],
    ];
    const before = await salesCount();
    for (const [name, body, reason] of refused) {
      const res = await call<{ message: string; error: string }>('POST', `${server.url}/api/transactions`, {
        headers: merchant.keys,
        body,
      });
      expect(res.status, `${name}: ${res.text}`).toBe(400);
      expect(res.body.error, name).toBe('VALIDATION_ERROR');
      expect(res.body.message, name).toMatch(reason);
    }
    expect(await salesCount()).toBe(before);

    // the same buyer with a charge that passes its checks: stored refused by the rule
    for (const body of [
      saleInput({ customer: blockedBuyer }),
      boletoInput({ customer: { ...blockedBuyer, address: ADDRESS } }),
    ]) {
      const res = await call<{ status: string; refusalReason: { code: string } }>(
        'POST',
        `${server.url}/api/transactions`,
        { headers: merchant.keys, body },
      );
      expect(res.status, res.text).toBe(201);
      expect(res.body).toMatchObject({ status: 'RECUSADO', refusalReason: { code: 'RISK_BLOCKED' } });
    }
    expect(await salesCount()).toBe(before + 2);
  });

  it('a payer’s boleto the charge refuses is 400 on the page, nothing stored', async () => {
    const link = await createLink(server, merchant, { methods: ['PIX', 'BOLETO'] });
    const before = await salesCount();
    const res = await call<{ message: string }>('POST', `${server.url}/api/public/pay/${link.slug}/boleto`, {
      body: { ...PAYER, email: BLOCKED, address: { ...ADDRESS, state: 'XX' } },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.message).toMatch(/state must be a UF/);
    expect(await salesCount()).toBe(before);
    // a good address: the rule refuses the payer, and the shop sees the refused sale
    const blocked = await call('POST', `${server.url}/api/public/pay/${link.slug}/boleto`, {
      body: { ...PAYER, email: BLOCKED, address: ADDRESS },
    });
    expect(blocked.status, blocked.text).toBe(403);
    expect(await salesCount()).toBe(before + 1);
  });

  it('the sandbox’s sale route and Pix Automático cycles meet the risk rules as any charge', async () => {
    type Refused = { status: string; refusalReason: { code: string } | null; paymentMethod: string };
    // its own checks first
    const bad = await call('POST', `${server.url}/api/sandbox/sales`, {
      headers: merchant.keys,
      body: saleInput({ customer: blockedBuyer, installments: 2 }),
    });
    expect(bad.status, bad.text).toBe(400);
    const sale = await call<Refused>('POST', `${server.url}/api/sandbox/sales`, {
      headers: merchant.keys,
      body: saleInput({ customer: blockedBuyer }),
    });
    expect(sale.status, sale.text).toBe(201);
    expect(sale.body).toMatchObject({ status: 'RECUSADO', refusalReason: { code: 'RISK_BLOCKED' } });
    // another buyer's goes on as before
    const fine = await call<Refused>('POST', `${server.url}/api/sandbox/sales`, {
      headers: merchant.keys,
      body: saleInput(),
    });
    expect(fine.body.status).toBe('PENDENTE');

    // a mandate whose payer is blocked: its first cycle (journey 3) and its next are refused, not debited
    const mandate = await call<{ idRec: string; sale: Refused }>(
      'POST',
      `${server.url}/api/sandbox/recurrences`,
      {
        headers: merchant.keys,
        body: { contrato: 'C-1', journey: 3, amount: 5000, dataInicial: spDay(0), customer: blockedBuyer },
      },
    );
    expect(mandate.status, mandate.text).toBe(201);
    expect(mandate.body.sale).toMatchObject({
      status: 'RECUSADO',
      paymentMethod: 'PIX_AUTOMATICO',
      refusalReason: { code: 'RISK_BLOCKED' },
    });
    const cycle = await call<Refused & { idRec: string }>(
      'POST',
      `${server.url}/api/sandbox/recurrences/${mandate.body.idRec}/cycles`,
      { headers: merchant.keys },
    );
    expect(cycle.status, cycle.text).toBe(201);
    expect(cycle.body).toMatchObject({ status: 'RECUSADO', idRec: mandate.body.idRec });
    const balance = await call<{ available: number }>('GET', `${server.url}/api/public/balance`, {
      headers: merchant.keys,
    });
    expect(balance.body.available).toBe(0);
  });
});
