/**
 * The payer's card routes of links and sessions: installments with their amounts (the account's card fee leaves
 * out what the sale would refuse), the card tokenized with no key, the token charged (approved → PAGO, refused →
 * RECUSADO with its code, then another try), another page's or account's token refused, a link or session
 * offering cards only when the gateway takes them, and the per-address limit. No card number is kept or logged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs, cardBody, cardEnding, dumpData, expectNoCardData } from '../cards/cards.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { createLink, createSession, PAYER } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;
let logs: () => string;
const numbers: string[] = [];

interface Option {
  installments: number;
  installmentCents: number;
  firstInstallmentCents: number;
  totalCents: number;
}
interface CardPaymentBody {
  saleId: string;
  status: string;
  amountCents: number;
  installments: number;
  cardBrand: string | null;
  cardLastFour: string | null;
  refusalCode: string | null;
  redirectUrl: string | null;
}

beforeAll(async () => {
  server = await startServer({ workers: false, env: { LOG_LEVEL: 'debug' } });
  logs = captureLogs(server);
  merchant = await createMerchant(server, 'Loja da Maria');
});
afterAll(() => server?.close());

/** A card tokenized on the page's own route (no key): its token. */
async function tokenFor(base: string, number: string): Promise<string> {
  numbers.push(number);
  const res = await call<{ token: string; brand: string; lastFour: string }>('POST', `${base}/card-token`, {
    body: cardBody(number),
  });
  expect(res.status, res.text).toBe(201);
  expect(res.body.lastFour).toBe(number.slice(-4));
  return res.body.token;
}

const sale = async (id: string) =>
  (
    await call<Record<string, unknown>>('GET', `${server.url}/api/transactions/${id}`, {
      headers: merchant.keys,
    })
  ).body;

describe('a payment link paid by card', () => {
  it('lists installments 1..maxInstallments with each amount (the first carries the remainder)', async () => {
    const link = await createLink(server, merchant, {
      amountCents: 10000,
      methods: ['CREDIT_CARD'],
      maxInstallments: 3,
    });
    const res = await call<{ options: Option[] }>(
      'GET',
      `${server.url}/api/public/pay/${link.slug}/installments`,
    );
    expect(res.status).toBe(200);
    expect(res.body.options).toEqual([
      { installments: 1, installmentCents: 10000, firstInstallmentCents: 10000, totalCents: 10000 },
      { installments: 2, installmentCents: 5000, firstInstallmentCents: 5000, totalCents: 10000 },
      { installments: 3, installmentCents: 3333, firstInstallmentCents: 3334, totalCents: 10000 },
    ]);
    // no maxInstallments: the contract's 12
    const open = await createLink(server, merchant, { amountCents: undefined, methods: ['CREDIT_CARD'] });
    const typed = await call<{ options: Option[] }>(
      'GET',
      `${server.url}/api/public/pay/${open.slug}/installments?amountCents=5000`,
    );
    expect(typed.status, typed.text).toBe(200);
    expect(typed.body.options.map((o) => o.installments)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    // an open link needs the amount typed
    const none = await call('GET', `${server.url}/api/public/pay/${open.slug}/installments`);
    expect(none.status).toBe(400);
  });

  it('leaves out the installments whose card fee the sale would refuse (the account’s installment fee)', async () => {
    const costly = await createMerchant(server);
    await server.runtime.platform.db.query(
      `UPDATE accounts SET card_fee_percent_e4 = 50000, card_installment_fee_percent_e4 = 200000,
              sale_fee_fixed = 0 WHERE id = $1`,
      [costly.accountId],
    );
    const link = await createLink(server, costly, { amountCents: 10000, methods: ['CREDIT_CARD'] });
    const base = `${server.url}/api/public/pay/${link.slug}`;
    const res = await call<{ options: Option[] }>('GET', `${base}/installments`);
    // 5% + 20% per extra installment: 5 installments take 85%, 6 would take 105%
    expect(res.body.options.map((o) => o.installments)).toEqual([1, 2, 3, 4, 5]);
    const refused = await call('POST', `${base}/card`, {
      body: { ...PAYER, token: await tokenFor(base, cardEnding('1')), installments: 6 },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: 'VALIDATION_ERROR',
      message: 'installments must be one of 1, 2, 3, 4, 5 for this amount',
    });
  });

  it('approved: the sale is PAGO in the installments chosen, carries the link, and no merchant key was sent', async () => {
    const link = await createLink(server, merchant, {
      amountCents: 19900,
      methods: ['PIX', 'CREDIT_CARD'],
      successUrl: 'https://loja.example.com/obrigado',
    });
    const base = `${server.url}/api/public/pay/${link.slug}`;
    const number = cardEnding('1');
    const token = await tokenFor(base, number);
    const res = await call<CardPaymentBody>('POST', `${base}/card`, {
      body: { ...PAYER, token, installments: 3 },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      saleId: expect.any(String),
      status: 'PAGO',
      amountCents: 19900,
      installments: 3,
      cardBrand: 'visa',
      cardLastFour: number.slice(-4),
      refusalCode: null,
      redirectUrl: 'https://loja.example.com/obrigado',
    });
    const stored = await sale(res.body.saleId);
    expect(stored).toMatchObject({
      status: 'PAGO',
      paymentMethod: 'CREDIT_CARD',
      installments: 3,
      paymentLinkId: link.id,
    });
    // the token was used: a second press is refused, no second sale
    const again = await call('POST', `${base}/card`, { body: { ...PAYER, token, installments: 3 } });
    expect(again.status).toBe(400);
    const counted = await call<{ uses: number }>('GET', `${server.url}/api/payment-links/${link.id}`, {
      headers: merchant.keys,
    });
    expect(counted.body.uses).toBe(1);
  });

  it('refused: RECUSADO with the acquirer’s code, and the payer tries again with another card', async () => {
    const link = await createLink(server, merchant, {
      amountCents: 5000,
      methods: ['CREDIT_CARD'],
      maxUses: 1,
    });
    const base = `${server.url}/api/public/pay/${link.slug}`;
    const refused = await call<CardPaymentBody>('POST', `${base}/card`, {
      body: { ...PAYER, token: await tokenFor(base, cardEnding('2')), installments: 1 },
    });
    expect(refused.status).toBe(201);
    expect(refused.body).toMatchObject({ status: 'RECUSADO', refusalCode: '05', redirectUrl: null });
    const expired = await call<CardPaymentBody>('POST', `${base}/card`, {
      body: { ...PAYER, token: await tokenFor(base, cardEnding('3')), installments: 1 },
    });
    expect(expired.body).toMatchObject({ status: 'RECUSADO', refusalCode: '57' });
    // a refusal takes no use of a one-use link
    const paid = await call<CardPaymentBody>('POST', `${base}/card`, {
      body: { ...PAYER, token: await tokenFor(base, cardEnding('4')), installments: 1 },
    });
    expect(paid.body.status).toBe('PAGO');
    const used = await call('POST', `${base}/card-token`, { body: cardBody(cardEnding('1')) });
    expect(used.status).toBe(410);
  });

  it('no answer from the acquirer: 201 PENDENTE, which the page waits for on the sale’s stream', async () => {
    const link = await createLink(server, merchant, { amountCents: 5000, methods: ['CREDIT_CARD'] });
    const base = `${server.url}/api/public/pay/${link.slug}`;
    server.logs.expect('card authorization outcome unknown');
    const res = await call<CardPaymentBody>('POST', `${base}/card`, {
      body: { ...PAYER, token: await tokenFor(base, cardEnding('6')), installments: 1 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'PENDENTE', refusalCode: null, redirectUrl: null });
    const events = await fetch(`${base}/sales/${res.body.saleId}/events`);
    expect(events.status).toBe(200);
    await events.body?.cancel();
  });

  it('refuses a token of another account, a link without cards, an unknown link, and bad installments', async () => {
    const other = await createMerchant(server);
    const theirs = await createLink(server, other, { methods: ['CREDIT_CARD'] });
    const mine = await createLink(server, merchant, { methods: ['CREDIT_CARD'] });
    const token = await tokenFor(`${server.url}/api/public/pay/${theirs.slug}`, cardEnding('1'));
    const crossed = await call('POST', `${server.url}/api/public/pay/${mine.slug}/card`, {
      body: { ...PAYER, token, installments: 1 },
    });
    expect(crossed.status).toBe(400);
    expect(crossed.body).toEqual({
      error: 'VALIDATION_ERROR',
      message: 'card.token is unknown, used or expired',
    });

    const pixOnly = await createLink(server, merchant, { methods: ['PIX'] });
    const noCard = await call('POST', `${server.url}/api/public/pay/${pixOnly.slug}/card-token`, {
      body: cardBody(cardEnding('1')),
    });
    expect(noCard.status).toBe(400);
    expect(noCard.body).toEqual({
      error: 'VALIDATION_ERROR',
      message: 'CREDIT_CARD is not a payment method of this checkout',
    });
    const unknown = await call('POST', `${server.url}/api/public/pay/AAAAAAAAAAAAAAAA/card-token`, {
      body: cardBody(cardEnding('1')),
    });
    expect(unknown.status).toBe(404);
    const thirteen = await call('POST', `${server.url}/api/public/pay/${mine.slug}/card`, {
      body: { ...PAYER, token, installments: 13 },
    });
    expect(thirteen.status).toBe(400);
    // a bad card is refused before the acquirer, without repeating it
    const luhn = await call<{ message: string }>(
      'POST',
      `${server.url}/api/public/pay/${mine.slug}/card-token`,
      { body: cardBody('4111111111111112') },
    );
    expect(luhn.status).toBe(400);
    expect(luhn.body.message).not.toContain('4111');
  });
});

describe('a checkout session paid by card', () => {
  it('charges the session’s amount; once paid, another card is refused (410)', async () => {
    const session = await createSession(server, merchant, { methods: ['CREDIT_CARD', 'PIX'] });
    const base = `${server.url}/api/public/checkout/${session.id}`;
    const options = await call<{ options: Option[] }>('GET', `${base}/installments`);
    expect(options.body.options).toHaveLength(12);
    expect(options.body.options[11]).toEqual({
      installments: 12,
      installmentCents: 831,
      firstInstallmentCents: 839,
      totalCents: 9980,
    });
    const paid = await call<CardPaymentBody>('POST', `${base}/card`, {
      body: { ...PAYER, token: await tokenFor(base, cardEnding('9', '54')), installments: 12 },
    });
    expect(paid.body).toMatchObject({
      status: 'PAGO',
      amountCents: 9980,
      installments: 12,
      cardBrand: 'mastercard',
      redirectUrl: `https://loja.example.com/obrigado?pedido=1001&session_id=${session.id}`,
    });
    const read = await call<{ status: string; saleId: string }>(
      'GET',
      `${server.url}/api/checkout/sessions/${session.id}`,
      { headers: merchant.keys },
    );
    expect(read.body).toMatchObject({ status: 'paid', saleId: paid.body.saleId });
    const twice = await call('POST', `${base}/card-token`, { body: cardBody(cardEnding('1')) });
    expect(twice.status).toBe(410);
  });

  it('two cards at the same moment pay it once: the other is refused (409) while the first is decided, or 410', async () => {
    const session = await createSession(server, merchant, { methods: ['CREDIT_CARD'] });
    const base = `${server.url}/api/public/checkout/${session.id}`;
    const tokens = [
      await tokenFor(base, cardEnding('1', '41')),
      await tokenFor(base, cardEnding('4', '52')),
      await tokenFor(base, cardEnding('0', '41')),
    ];
    const answers = await Promise.all(
      tokens.map((token) =>
        call<CardPaymentBody & { error?: string }>('POST', `${base}/card`, {
          body: { ...PAYER, token, installments: 1 },
        }),
      ),
    );
    const paid = answers.filter((a) => a.status === 201 && a.body.status === 'PAGO');
    expect(paid, answers.map((a) => a.text).join('\n')).toHaveLength(1);
    for (const other of answers.filter((a) => a !== paid[0])) {
      expect([409, 410], other.text).toContain(other.status);
      expect(other.body.error).toBe(other.status === 409 ? 'CONFLICT' : 'GONE');
    }
    const [row] = await server.runtime.platform.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sales WHERE checkout_session_id = $1`,
      [session.id],
    );
    expect(row!.n).toBe(1);
  });
});

describe('methods the gateway cannot take', () => {
  it('with SANDBOX off (no usable acquirer, no PSP) a link or session offering them is refused; the panel is told', async () => {
    const off = await startServer({ workers: false, env: { SANDBOX: 'off' } });
    try {
      const owner = await createMerchant(off);
      const link = await call('POST', `${off.url}/api/payment-links`, {
        headers: owner.keys,
        body: { title: 'Curso', amountCents: 1000, methods: ['CREDIT_CARD'] },
      });
      expect(link.status).toBe(400);
      expect(link.body).toEqual({
        error: 'VALIDATION_ERROR',
        message: 'methods: this gateway cannot take CREDIT_CARD (it takes none)',
      });
      const session = await call('POST', `${off.url}/api/checkout/sessions`, {
        headers: owner.keys,
        body: {
          amountCents: 1000,
          items: [{ title: 'Camiseta', unitPrice: 1000, quantity: 1, tangible: true }],
          methods: ['PIX', 'CREDIT_CARD'],
          successUrl: 'https://loja.example.com/ok',
        },
      });
      expect(session.status).toBe(400);
      expect(session.body).toEqual({
        error: 'VALIDATION_ERROR',
        message: 'methods: this gateway cannot take PIX, CREDIT_CARD (it takes none)',
      });
      const methods = await call('GET', `${off.url}/api/panel/payment-methods`, { headers: owner.panel });
      expect(methods.body).toEqual({ methods: [] });
      // a link made when cards were taken shows no card form once they are not
      const [row] = await off.runtime.platform.db.query<{ slug: string }>(
        `INSERT INTO payment_links (id, account_id, slug, title, amount_cents, methods, metadata)
         VALUES (gen_random_uuid(), $1, 'BBBBBBBBBBBBBBBB', 'Antigo', 1000, '{CREDIT_CARD}', '{}') RETURNING slug`,
        [owner.accountId],
      );
      const page = await call<{ methods: string[] }>('GET', `${off.url}/api/public/pay/${row!.slug}`);
      expect(page.body.methods).toEqual([]);
      const token = await call('POST', `${off.url}/api/public/pay/${row!.slug}/card-token`, {
        body: cardBody(cardEnding('1')),
      });
      expect(token.status).toBe(503);
    } finally {
      await off.close();
    }
    const methods = await call('GET', `${server.url}/api/panel/payment-methods`, { headers: merchant.panel });
    expect(methods.body).toEqual({ methods: ['PIX', 'BOLETO', 'CREDIT_CARD'] });
  });
});

describe('the payer’s card routes are limited per address', () => {
  it('counts installments, tokens and payments with the other payer routes: 429 shape D', async () => {
    const limited = await startServer({ workers: false, env: { RATE_LIMIT_CHECKOUT_PER_IP: '3' } });
    try {
      const owner = await createMerchant(limited);
      const link = await createLink(limited, owner, { methods: ['CREDIT_CARD'] });
      const base = `${limited.url}/api/public/pay/${link.slug}`;
      const from = { localAddress: '127.0.0.4' };
      expect((await call('GET', base, from)).status).toBe(200);
      expect((await call('GET', `${base}/installments`, from)).status).toBe(200);
      expect(
        (await call('POST', `${base}/card-token`, { ...from, body: cardBody(cardEnding('1')) })).status,
      ).toBe(201);
      const over = await call('POST', `${base}/card`, {
        ...from,
        body: { ...PAYER, token: 'tok_x', installments: 1 },
      });
      expect(over.status).toBe(429);
      expect(over.body).toEqual({
        error: 'RATE_LIMITED',
        message: expect.stringMatching(/^Too many requests/),
      });
    } finally {
      await limited.close();
    }
  });
});

describe('card data', () => {
  it('no card number or CVV in the database or the logs after these payments', async () => {
    expectNoCardData('the database', await dumpData(server.databaseUrl), numbers, ['731']);
    expectNoCardData('the logs', logs(), numbers, ['731']);
  });
});
