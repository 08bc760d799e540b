import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardRefunds } from '../../src/cards/card-refunds.js';
import { CieloAcquirer } from '../../src/cards/cielo-acquirer.js';
import { DevAcquirer } from '../../src/devacquirer/index.js';
import { getBalance } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { releaseForgottenRefunds } from '../../src/sales/refunds/refunds.js';
import { type SaleBody, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { captureLogs, cardBody, cardEnding, cieloEnv, dumpData, expectNoCardData } from './cards.js';

type Refunded = SaleBody & { refundedAmount: number };

let acquirer: DevAcquirer;
let server: TestServer;
let merchant: TestMerchant;
let cielo: CieloAcquirer;
let logs: () => string;
const db = () => server.runtime.platform.db;
const TIMEOUT_MS = 400;

/** Every card number charged here: searched for at the end in the database, the job payloads and the logs. */
const numbers: string[] = [];

async function capturedSale(amount: number, who = merchant): Promise<SaleBody> {
  const number = cardEnding('0');
  numbers.push(number);
  const tok = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': who.publicKey },
    body: cardBody(number),
  });
  expect(tok.status, tok.text).toBe(201);
  const res = await call<SaleBody>('POST', `${server.url}/api/transactions`, {
    headers: who.keys,
    body: saleInput({
      paymentMethod: 'CREDIT_CARD',
      card: { token: tok.body.token },
      amount,
      installments: 3,
    }),
  });
  expect(res.body.status, res.text).toBe('PAGO');
  return res.body;
}

const refund = (sale: SaleBody, amountCents?: number, key?: string) =>
  call<Refunded>('POST', `${server.url}/api/transactions/${sale.uuid}/refund`, {
    headers: { ...merchant.keys, ...(key ? { 'idempotency-key': key } : {}) },
    body: amountCents === undefined ? {} : { amountCents },
  });
const voidedAt = (sale: SaleBody) => acquirer.salesOf(sale.uuid)[0]!.Payment.VoidedAmount ?? 0;

beforeAll(async () => {
  acquirer = new DevAcquirer();
  await acquirer.start();
  server = await startServer({
    workers: false,
    env: cieloEnv(acquirer, { CIELO_TIMEOUT_MS: String(TIMEOUT_MS), LOG_LEVEL: 'debug' }),
  });
  logs = captureLogs(server);
  merchant = await createMerchant(server);
  cielo = new CieloAcquirer(server.runtime.platform.config.cards.cielo!);
});
afterAll(async () => {
  await cielo?.close();
  await server?.close();
  await acquirer?.close();
});

describe('refunds of card sales through the acquirer (Cielo void)', () => {
  it('voids part of a captured sale, the same refund again with its key, then the rest: the installments still to settle cover it', async () => {
    const sale = await capturedSale(9000);
    const paid = await getBalance(db(), merchant.accountId);
    expect(paid.available).toBe(0); // all of it is receivable
    const part = await refund(sale, 3000, 'card-r1');
    expect(part.status, part.text).toBe(202);
    expect(part.body).toMatchObject({ status: 'PAGO', refundedAmount: 3000 });
    expect(voidedAt(sale)).toBe(3000);
    const again = await refund(sale, 3000, 'card-r1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(voidedAt(sale)).toBe(3000); // never a second void
    const rest = await refund(sale);
    expect(rest.body).toMatchObject({ status: 'ESTORNADO', refundedAmount: 9000 });
    expect(voidedAt(sale)).toBe(9000);
    expect(acquirer.salesOf(sale.uuid)).toHaveLength(1);
    // what the refunds took from available is what the installments will bring: nothing is left in all
    const [after] = await db().query<{ total: number }>(
      `SELECT sum(balance)::bigint AS total FROM ledger_accounts
        WHERE account_id = $1 AND bucket IN ('available', 'receivable')`,
      [merchant.accountId],
    );
    expect(Number(after!.total)).toBe(0);
    expect((await verifyLedger(db())).ok).toBe(true);
  });

  it('refunds of one sale asked together are each sent in turn: all made, none left held', async () => {
    const sale = await capturedSale(10_000);
    // the first void is slow (answered within the client's patience): the others are asked while it is sent
    acquirer.fault({ kind: 'late', delayMs: TIMEOUT_MS / 2, match: 'PUT /1/sales' });
    const first = refund(sale, 1000);
    await waitUntil(() => acquirer.faultsWaiting === 0);
    const answers = await Promise.all([first, ...Array.from({ length: 9 }, () => refund(sale, 1000))]);
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(202);
      expect((answer.body as Refunded & { refund: { status: string } }).refund.status).toBe('succeeded');
    }
    expect(voidedAt(sale)).toBe(10_000);
    const list = await call<{ status: string; amountCents: number }[]>(
      'GET',
      `${server.url}/api/transactions/${sale.uuid}/refunds`,
      { headers: merchant.keys },
    );
    expect(list.body.map((r) => r.status)).toEqual(Array(10).fill('succeeded'));
    const after = await call<Refunded>('GET', `${server.url}/api/transactions/${sale.uuid}`, {
      headers: merchant.keys,
    });
    expect(after.body).toMatchObject({ status: 'ESTORNADO', refundedAmount: 10_000 });
    expect((await getBalance(db(), merchant.accountId)).blocked).toBe(0);
    expect((await verifyLedger(db())).ok).toBe(true);
  });

  it('a void answered after the client gave up is read back as made: one void, the refund made', async () => {
    const sale = await capturedSale(5000);
    acquirer.fault({ kind: 'late', delayMs: TIMEOUT_MS * 3, match: 'PUT /1/sales' });
    const res = await refund(sale, 2000, 'card-late');
    await new Promise((r) => setTimeout(r, TIMEOUT_MS * 3));
    // the read-back right after the timeout may come before the late void lands: then the refund stays held,
    // and the same key asks again without voiding twice
    if (res.body.refundedAmount !== 2000) {
      expect(res.status).toBe(502);
      const again = await refund(sale, 2000, 'card-late');
      expect(again.body).toMatchObject({ refundedAmount: 2000 });
    }
    expect(voidedAt(sale)).toBe(2000);
  });

  it('a void never answered and never read back stays held, and the forgotten-refund job asks the acquirer before giving it up', async () => {
    const sale = await capturedSale(4000);
    acquirer.fault({ kind: 'late', delayMs: TIMEOUT_MS * 3, match: 'PUT /1/sales' });
    const asked = refund(sale, 1500);
    // once the void is on its way (the read before it done), the read-back after its timeout is not answered
    await waitUntil(
      () => acquirer.faultsWaiting === 0,
      10_000,
      () => 'the void to reach the acquirer',
    );
    acquirer.fault({ kind: 'silent', delayMs: TIMEOUT_MS * 3, match: 'GET /1/sales' });
    const res = await asked;
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ error: 'PROCESSOR_ERROR' });
    await new Promise((r) => setTimeout(r, TIMEOUT_MS * 4));
    expect(voidedAt(sale)).toBe(1500); // made at the acquirer after all
    await db().query(
      "UPDATE sale_refunds SET updated_at = now() - interval '11 minutes' WHERE sale_id = $1",
      [sale.id],
    );
    const refunders = new Map([['card:cielo', new CardRefunds(db(), cielo)]]);
    expect(await releaseForgottenRefunds(db(), server.runtime.platform.queue, refunders)).toBe(0);
    const now = await call<Refunded>('GET', `${server.url}/api/transactions/${sale.uuid}`, {
      headers: merchant.keys,
    });
    expect(now.body).toMatchObject({ status: 'PAGO', refundedAmount: 1500 });
    expect(voidedAt(sale)).toBe(1500);
  });

  it('a void the acquirer refuses ends the refund not made: 502, its money the merchant’s again', async () => {
    const sale = await capturedSale(3000);
    const before = await getBalance(db(), merchant.accountId);
    acquirer.fault({ kind: 'status', status: 400, match: 'PUT /1/sales' });
    const res = await refund(sale, 1000);
    expect(res.status).toBe(502);
    expect(await getBalance(db(), merchant.accountId)).toEqual(before);
    const rows = await db().query<{ status: string }>('SELECT status FROM sale_refunds WHERE sale_id = $1', [
      sale.id,
    ]);
    expect(rows).toEqual([{ status: 'FAILED' }]);
    expect(voidedAt(sale)).toBe(0);
  });

  it('leaves no card number or CVV in any table, job payload or log line', async () => {
    const payloads = await db().query<{ name: string; data: unknown }>('SELECT name, data FROM pgboss.job');
    expectNoCardData('the job payloads', JSON.stringify(payloads), numbers, ['731']);
    expectNoCardData('the database', await dumpData(server.databaseUrl), numbers, ['731']);
    expectNoCardData('the logs', logs(), numbers, ['731']);
  });
});
