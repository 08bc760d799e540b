/**
 * Customers and saved cards (decisions.md, "Subscriptions and saved cards"): a customer made by API key, a card
 * saved on file from a one-time token (the acquirer's reusable token kept, never the number), charged by
 * card: {cardId} as often as needed, invisible to another account, and dead once deleted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody, cardEnding, dumpData, expectNoCardData } from '../cards/cards.js';
import { CUSTOMER, type SaleBody, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

interface CustomerBody {
  id: string;
  name: string;
  document: string;
  cards: { id: string; brand: string; lastFour: string; expMonth: number; expYear: number }[];
}

let server: TestServer;
let merchant: TestMerchant;
let other: TestMerchant;
const numbers: string[] = [];

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
  other = await createMerchant(server, 'Other Merchant');
});
afterAll(() => server?.close());

const api = <T>(method: string, path: string, body?: unknown, who = merchant) =>
  call<T & { error?: string; message?: string }>(method, `${server.url}${path}`, {
    headers: who.keys,
    ...(body === undefined ? {} : { body }),
  });

async function tokenFor(number: string, who = merchant): Promise<string> {
  numbers.push(number);
  const res = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': who.publicKey },
    body: cardBody(number),
  });
  expect(res.status, res.text).toBe(201);
  return res.body.token;
}

describe('customers', () => {
  it('are created with the checks of a charge’s customer, listed newest first, read one by one', async () => {
    const made = await api<CustomerBody>('POST', '/api/customers', {
      name: ' Ana Souza ',
      email: 'ana@example.com',
      document: '529.982.247-25',
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ name: 'Ana Souza', document: '52998224725', phone: '', cards: [] });
    const bad = await api('POST', '/api/customers', { ...CUSTOMER, document: '52998224724' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('CPF or CNPJ');
    expect((await api('POST', '/api/customers', { name: 'x' })).status).toBe(400);
    const second = await api<CustomerBody>('POST', '/api/customers', CUSTOMER);
    const page = await api<{ data: CustomerBody[]; nextCursor: string | null }>(
      'GET',
      '/api/customers?limit=1',
    );
    expect(page.body.data.map((c) => c.id)).toEqual([second.body.id]);
    const next = await api<{ data: CustomerBody[] }>(
      'GET',
      `/api/customers?limit=1&cursor=${page.body.nextCursor}`,
    );
    expect(next.body.data.map((c) => c.id)).toEqual([made.body.id]);
    expect((await api('GET', `/api/customers/${made.body.id}`)).status).toBe(200);
    expect((await api('GET', `/api/customers/${made.body.id}`, undefined, other)).status).toBe(404);
    expect((await api('GET', '/api/customers/nope')).status).toBe(404);
  });

  it('save a card on file and are charged by cardId again and again; deleted, it charges nothing', async () => {
    const customer = (await api<CustomerBody>('POST', '/api/customers', CUSTOMER)).body;
    const number = cardEnding('1');
    const saved = await api<CustomerBody['cards'][number]>('POST', `/api/customers/${customer.id}/cards`, {
      token: await tokenFor(number),
    });
    expect(saved.status, saved.text).toBe(201);
    expect(saved.body).toMatchObject({ brand: 'visa', lastFour: number.slice(-4), expMonth: 12 });
    expect((await api<CustomerBody>('GET', `/api/customers/${customer.id}`)).body.cards).toEqual([
      saved.body,
    ]);

    const charge = () =>
      api<SaleBody>(
        'POST',
        '/api/transactions',
        saleInput({ paymentMethod: 'CREDIT_CARD', card: { cardId: saved.body.id } }),
      );
    for (let i = 0; i < 3; i++) {
      const sale = await charge();
      expect(sale.status, sale.text).toBe(201);
      expect(sale.body).toMatchObject({ status: 'PAGO', cardLastFour: number.slice(-4), cardBrand: 'visa' });
    }
    // another account cannot charge or delete it, nor save its own token on this customer
    const foreign = await api(
      'POST',
      '/api/transactions',
      saleInput({ paymentMethod: 'CREDIT_CARD', card: { cardId: saved.body.id } }),
      other,
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toContain('cardId');
    // a card that is neither a token nor a saved card's id is told as the one it looks like, or as the choice
    const badCards: [unknown, string][] = [
      [{ cardId: 'abc' }, 'Invalid body/card/cardId: must match format "uuid"'],
      [{ token: '' }, 'Invalid body/card/token: must NOT have fewer than 1 characters'],
      [{}, 'Invalid body/card: must have "token" or "cardId"'],
      [{ token: 'tok', cardId: saved.body.id }, 'Invalid body/card: must have only one of "cardId", "token"'],
    ];
    for (const [card, message] of badCards) {
      const bad = await api('POST', '/api/transactions', saleInput({ paymentMethod: 'CREDIT_CARD', card }));
      expect([bad.status, bad.body.message]).toEqual([400, message]);
    }
    expect(
      (await api('DELETE', `/api/customers/${customer.id}/cards/${saved.body.id}`, undefined, other)).status,
    ).toBe(404);
    expect(
      (
        await api(
          'POST',
          `/api/customers/${customer.id}/cards`,
          { token: await tokenFor(cardEnding('0'), other) },
          other,
        )
      ).status,
    ).toBe(404);
    // a token saved once is spent: it neither saves again nor charges
    const token = await tokenFor(cardEnding('0'));
    expect((await api('POST', `/api/customers/${customer.id}/cards`, { token })).status).toBe(201);
    expect((await api('POST', `/api/customers/${customer.id}/cards`, { token })).status).toBe(400);
    expect(
      (await api('POST', '/api/transactions', saleInput({ paymentMethod: 'CREDIT_CARD', card: { token } })))
        .status,
    ).toBe(400);

    expect((await api('DELETE', `/api/customers/${customer.id}/cards/${saved.body.id}`)).status).toBe(204);
    expect((await api('DELETE', `/api/customers/${customer.id}/cards/${saved.body.id}`)).status).toBe(404);
    const after = await charge();
    expect(after.status).toBe(400);
    expect((await api<CustomerBody>('GET', `/api/customers/${customer.id}`)).body.cards).toHaveLength(1);
  });

  it('saving the card on file again renews it: one card, its id kept, charged by the new token', async () => {
    const customer = (await api<CustomerBody>('POST', '/api/customers', CUSTOMER)).body;
    const number = cardEnding('9');
    const first = await api<{ id: string }>('POST', `/api/customers/${customer.id}/cards`, {
      token: await tokenFor(number),
    });
    expect(first.status, first.text).toBe(201);
    const again = await api<{ id: string; lastFour: string }>('POST', `/api/customers/${customer.id}/cards`, {
      token: await tokenFor(number),
    });
    expect(again.status, again.text).toBe(201);
    expect(again.body).toMatchObject({ id: first.body.id, lastFour: number.slice(-4) });
    // another expiry is another card (a renewed plastic): kept beside it
    const renewed = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': merchant.publicKey },
      body: cardBody(number, { expYear: new Date().getUTCFullYear() + 3 }),
    });
    const other = await api<{ id: string }>('POST', `/api/customers/${customer.id}/cards`, {
      token: renewed.body.token,
    });
    expect(other.body.id).not.toBe(first.body.id);
    const cards = (await api<CustomerBody>('GET', `/api/customers/${customer.id}`)).body.cards;
    expect(cards.map((c) => c.id)).toEqual([first.body.id, other.body.id]);
    // the renewed token charges; the one it replaced is wiped
    const sale = await api<SaleBody>(
      'POST',
      '/api/transactions',
      saleInput({ paymentMethod: 'CREDIT_CARD', card: { cardId: first.body.id } }),
    );
    expect(sale.status, sale.text).toBe(201);
    expect(sale.body.status).toBe('PAGO');
    const [tokens] = await server.runtime.platform.db.query<{ wiped: number }>(
      `SELECT count(*) FILTER (WHERE t.acquirer_token_sealed = '')::int AS wiped
         FROM card_tokens t WHERE t.account_id = $1 AND t.last_four = $2`,
      [merchant.accountId, number.slice(-4)],
    );
    expect(tokens!.wiped).toBe(1);

    // the same card saved five times at once (the card-testing limit allows five an hour): still one card on file
    const racing = cardEnding('1');
    const tokens8 = await Promise.all(Array.from({ length: 5 }, () => tokenFor(racing)));
    const saves = await Promise.all(
      tokens8.map((token) => api<{ id: string }>('POST', `/api/customers/${customer.id}/cards`, { token })),
    );
    expect(saves.map((r) => r.status)).toEqual(saves.map(() => 201));
    expect(new Set(saves.map((r) => r.body.id)).size).toBe(1);
    const after = (await api<CustomerBody>('GET', `/api/customers/${customer.id}`)).body.cards;
    expect(after.filter((c) => c.lastFour === racing.slice(-4))).toHaveLength(1);
  });

  it('keeps no card number anywhere', async () => {
    expectNoCardData('the database', await dumpData(server.databaseUrl), numbers, ['731']);
  });
});
