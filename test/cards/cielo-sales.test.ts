import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardSales } from '../../src/cards/card-sales.js';
import { CieloAcquirer } from '../../src/cards/cielo-acquirer.js';
import { DevAcquirer } from '../../src/devacquirer/index.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { eventsOf, type SaleBody, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { captureLogs, cardBody, cardEnding, cieloEnv, dumpData, expectNoCardData } from './cards.js';

type CardSale = SaleBody & { refusalReason?: { code: string; message: string }; installments: number | null };

let acquirer: DevAcquirer;
let server: TestServer;
let merchant: TestMerchant;
let jobs: CardSales;
let cielo: CieloAcquirer;
let logs: () => string;
const db = () => server.runtime.platform.db;
const TIMEOUT_MS = 400;
/** Every card number this run charged: searched for in the database, the logs and the job payloads at the end. */
const numbers: string[] = [];

async function cardSale(extra: Record<string, unknown> = {}, number = cardEnding('0')) {
  numbers.push(number);
  const tok = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': merchant.publicKey },
    body: cardBody(number),
  });
  expect(tok.status, tok.text).toBe(201);
  return call<CardSale>('POST', `${server.url}/api/transactions`, {
    headers: merchant.keys,
    body: saleInput({ paymentMethod: 'CREDIT_CARD', card: { token: tok.body.token }, ...extra }),
  });
}

const statusOf = async (id: number) =>
  (await db().query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [id]))[0]!.status;

beforeAll(async () => {
  acquirer = new DevAcquirer();
  await acquirer.start();
  server = await startServer({
    workers: false,
    env: cieloEnv(acquirer, { CIELO_TIMEOUT_MS: String(TIMEOUT_MS), LOG_LEVEL: 'debug' }),
  });
  logs = captureLogs(server);
  merchant = await createMerchant(server);
  const { platform } = server.runtime;
  cielo = new CieloAcquirer(platform.config.cards.cielo!);
  jobs = new CardSales(platform.db, platform.queue, cielo, platform.config.secretsKey, {
    allowPrivateTargets: true,
  });
});
afterAll(async () => {
  await cielo?.close();
  await server?.close();
  await acquirer?.close();
});

describe('card sales through Cielo API 3.0 (gateway dev-acquirer)', () => {
  it('a card saved on file for a customer is charged twice by its Cielo CardToken, never sent again', async () => {
    const number = cardEnding('0');
    numbers.push(number);
    const customer = await call<{ id: string }>('POST', `${server.url}/api/customers`, {
      headers: merchant.keys,
      body: { name: 'Ana Souza', email: 'ana@example.com', document: '52998224725' },
    });
    const tok = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': merchant.publicKey },
      body: cardBody(number),
    });
    const saved = await call<{ id: string }>(
      'POST',
      `${server.url}/api/customers/${customer.body.id}/cards`,
      {
        headers: merchant.keys,
        body: { token: tok.body.token },
      },
    );
    expect(saved.status, saved.text).toBe(201);
    const tokens = new Set<string>();
    for (let i = 0; i < 2; i++) {
      const res = await call<CardSale>('POST', `${server.url}/api/transactions`, {
        headers: merchant.keys,
        body: saleInput({ paymentMethod: 'CREDIT_CARD', card: { cardId: saved.body.id } }),
      });
      expect(res.status, res.text).toBe(201);
      expect(res.body.status).toBe('PAGO');
      const [sale] = acquirer.salesOf(res.body.uuid);
      const card = (sale!.Payment as { CreditCard: { CardToken: string } }).CreditCard;
      expect(card.CardToken).toMatch(/\S/);
      tokens.add(card.CardToken);
    }
    expect(tokens.size).toBe(1);
  });

  it('authorizes and captures at once: POST /1/sales/ with the sale uuid as MerchantOrderId → PAGO', async () => {
    const res = await cardSale({ installments: 4, amount: 12345 });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'PAGO', installments: 4, externalTransactionId: res.body.uuid });
    const [sale] = acquirer.salesOf(res.body.uuid);
    expect(acquirer.salesOf(res.body.uuid)).toHaveLength(1);
    expect(sale!.Payment).toMatchObject({
      Type: 'CreditCard',
      Amount: 12345,
      Installments: 4,
      Capture: true,
      Status: 2,
      CapturedAmount: 12345,
    });
  });

  it('authorizes only, then captures less: PUT /1/sales/{PaymentId}/capture?amount=', async () => {
    const res = await cardSale({ capture: false, amount: 10000 });
    expect(res.body.status).toBe('EM_PROCESSAMENTO');
    expect(acquirer.salesOf(res.body.uuid)[0]!.Payment.Status).toBe(1);
    const captured = await call<CardSale>('POST', `${server.url}/api/transactions/${res.body.id}/capture`, {
      headers: merchant.keys,
      body: { amountCents: 7000 },
    });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body).toMatchObject({ status: 'PAGO', amount: 7000 });
    expect(acquirer.salesOf(res.body.uuid)[0]!.Payment).toMatchObject({ Status: 2, CapturedAmount: 7000 });
  });

  it("denied: RECUSADO with Cielo's ReturnCode and ReturnMessage", async () => {
    const res = await cardSale({}, cardEnding('2'));
    expect(res.body).toMatchObject({
      status: 'RECUSADO',
      refusalReason: { code: '05', message: 'Not Authorized' },
    });
  });

  it('a 5xx on the authorization: the order id is queried, found absent, and asked again once: one charge', async () => {
    server.logs.expect('card authorization outcome unknown');
    acquirer.fault({ kind: 'status', status: 503, match: 'POST /1/sales' });
    const res = await cardSale();
    expect(res.status, res.text).toBe(201);
    expect(res.body.status).toBe('PAGO');
    expect(acquirer.salesOf(res.body.uuid)).toHaveLength(1);
  });

  it('an answer after the client gave up: the query finds the payment, nothing is sent again', async () => {
    server.logs.expect('card authorization outcome unknown');
    acquirer.fault({ kind: 'late', delayMs: TIMEOUT_MS * 3, match: 'POST /1/sales' });
    const res = await cardSale();
    expect(res.status, res.text).toBe(201);
    expect(res.body.status).toBe('PAGO');
    expect(acquirer.salesOf(res.body.uuid)).toHaveLength(1);
  });

  it('no answer at all: PENDENTE, then the job queries: a payment found is applied, none is FALHA', async () => {
    server.logs.expect('card authorization outcome unknown');
    // the authorization is made but its answer is lost, and the query that follows times out too
    acquirer.fault({ kind: 'late', delayMs: TIMEOUT_MS * 3, match: 'POST /1/sales' });
    acquirer.fault({ kind: 'silent', delayMs: TIMEOUT_MS * 3, match: 'GET /1/sales' });
    const made = await cardSale();
    expect(made.body.status).toBe('PENDENTE');
    // nothing reached the acquirer: both authorization attempts time out, and so does the query between them
    acquirer.fault({ kind: 'silent', delayMs: TIMEOUT_MS * 3, match: 'POST /1/sales' });
    acquirer.fault({ kind: 'silent', delayMs: TIMEOUT_MS * 3, match: 'GET /1/sales' });
    acquirer.fault({ kind: 'silent', delayMs: TIMEOUT_MS * 3, match: 'POST /1/sales' });
    const lost = await cardSale();
    expect(lost.body.status).toBe('PENDENTE');
    expect(acquirer.salesOf(lost.body.uuid)).toHaveLength(0);
    await db().query("UPDATE card_payments SET updated_at = now() - interval '2 minutes'");
    expect(await jobs.resolveUnknown()).toBe(2);
    expect(await statusOf(made.body.id)).toBe('PAGO');
    expect(await statusOf(lost.body.id)).toBe('FALHA');
    expect(acquirer.salesOf(made.body.uuid)).toHaveLength(1);
    expect((await eventsOf(server, 'sale', lost.body.id)).map((e) => e.event_type)).toEqual(['sale.refused']);
  });

  it('a pending payment (Status 12) stays PENDENTE until the acquirer decides', async () => {
    const res = await cardSale({}, cardEnding('6'));
    expect(res.body.status).toBe('PENDENTE');
    await db().query(
      "UPDATE card_payments SET updated_at = now() - interval '2 minutes' WHERE sale_id = $1",
      [res.body.id],
    );
    expect(await jobs.resolveUnknown()).toBe(1);
    expect(await statusOf(res.body.id)).toBe('PENDENTE');
    acquirer.decide(acquirer.salesOf(res.body.uuid)[0]!.Payment.PaymentId, true);
    await db().query(
      "UPDATE card_payments SET updated_at = now() - interval '2 minutes' WHERE sale_id = $1",
      [res.body.id],
    );
    await jobs.resolveUnknown();
    expect(await statusOf(res.body.id)).toBe('PAGO');
  });

  it('voids an authorization older than 7 days: PUT /1/sales/{PaymentId}/void?amount= → CANCELADO', async () => {
    const res = await cardSale({ capture: false, amount: 5000 });
    await db().query(
      "UPDATE card_payments SET authorized_at = now() - interval '8 days' WHERE sale_id = $1",
      [res.body.id],
    );
    expect(await jobs.voidExpired()).toBe(1);
    expect(await statusOf(res.body.id)).toBe('CANCELADO');
    expect(acquirer.salesOf(res.body.uuid)[0]!.Payment).toMatchObject({ Status: 10, VoidedAmount: 5000 });
  });

  it('a capture whose answer is lost is found captured by the order id: PAGO, captured once', async () => {
    const res = await cardSale({ capture: false, amount: 6000 });
    acquirer.fault({ kind: 'late', delayMs: TIMEOUT_MS * 3, match: 'PUT /1/sales' });
    const captured = await call<CardSale>('POST', `${server.url}/api/transactions/${res.body.id}/capture`, {
      headers: merchant.keys,
    });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body.status).toBe('PAGO');
    expect(acquirer.salesOf(res.body.uuid)[0]!.Payment).toMatchObject({ Status: 2, CapturedAmount: 6000 });
  });

  it('the void job applies a capture it finds made at the acquirer instead of voiding it', async () => {
    const res = await cardSale({ capture: false, amount: 3000 });
    const paymentId = acquirer.salesOf(res.body.uuid)[0]!.Payment.PaymentId;
    await cielo.capture(paymentId, 3000); // captured there, the gateway never told
    await db().query(
      "UPDATE card_payments SET authorized_at = now() - interval '8 days' WHERE sale_id = $1",
      [res.body.id],
    );
    expect(await jobs.voidExpired()).toBe(1);
    expect(await statusOf(res.body.id)).toBe('PAGO');
    expect(acquirer.sales.get(paymentId)!.Payment.Status).toBe(2);
  });

  it('cancel(paymentId, amountCents) voids part of a captured payment (for refunds)', async () => {
    const res = await cardSale({ amount: 9000 });
    const paymentId = acquirer.salesOf(res.body.uuid)[0]!.Payment.PaymentId;
    const after = await cielo.cancel(paymentId, 4000);
    expect(after).toMatchObject({ state: 'captured', capturedCents: 9000 });
    expect(acquirer.sales.get(paymentId)!.Payment).toMatchObject({ Status: 2, VoidedAmount: 4000 });
    expect((await cielo.cancel(paymentId, 5000)).state).toBe('voided');
  });

  it('leaves the ledger consistent', async () => {
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it('leaves no card number or CVV in any table, job payload or log line after authorizations, captures, refusals and voids', async () => {
    expect(numbers.length).toBeGreaterThan(5);
    // the job queue's tables are in the dump too; its payloads are also read on their own
    const payloads = await db().query<{ name: string; data: unknown }>('SELECT name, data FROM pgboss.job');
    expectNoCardData('the job payloads', JSON.stringify(payloads), numbers, ['731']);
    expectNoCardData('the database', await dumpData(server.databaseUrl), numbers, ['731']);
    expectNoCardData('the logs', logs(), numbers, ['731']);
  });
});
