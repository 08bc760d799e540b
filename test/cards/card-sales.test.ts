import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/accounts/accounts.js';
import { CardSales } from '../../src/cards/card-sales.js';
import { SandboxAcquirer } from '../../src/cards/sandbox-acquirer.js';
import { getBalance } from '../../src/ledger/ledger.js';
import { receivableBalance } from '../../src/ledger/receivables.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { hashSecret } from '../../src/platform/crypto/secrets.js';
import { eventsOf, type SaleBody, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { captureLogs, cardBody, cardEnding, dumpData, expectNoCardData } from './cards.js';

type CardSale = SaleBody & {
  cardBrand: string | null;
  cardLastFour: string | null;
  installments: number | null;
  refusalReason?: { code: string; message: string };
  pixQrCode?: string;
};

let server: TestServer;
let merchant: TestMerchant;
let other: TestMerchant;
let jobs: CardSales;
let logs: () => string;
const db = () => server.runtime.platform.db;
/** Every card number tokenized here: searched for at the end in the database, the job payloads and the logs. */
const numbers: string[] = [];

async function tokenFor(number: string, who = merchant): Promise<string> {
  numbers.push(number);
  const res = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': who.publicKey },
    body: cardBody(number),
  });
  expect(res.status, res.text).toBe(201);
  return res.body.token;
}

const sell = (body: unknown, headers: Record<string, string> = {}, who = merchant) =>
  call<CardSale>('POST', `${server.url}/api/transactions`, { headers: { ...who.keys, ...headers }, body });

const capture = (id: number | string, body?: unknown, who = merchant) =>
  call<CardSale>('POST', `${server.url}/api/transactions/${id}/capture`, {
    headers: who.keys,
    ...(body === undefined ? {} : { body }),
  });

async function cardSale(extra: Record<string, unknown> = {}, number = cardEnding('0')) {
  const token = await tokenFor(number);
  return sell(saleInput({ paymentMethod: 'CREDIT_CARD', card: { token }, ...extra }));
}

beforeAll(async () => {
  server = await startServer({ workers: false, env: { LOG_LEVEL: 'debug' } });
  logs = captureLogs(server);
  merchant = await createMerchant(server);
  other = await createMerchant(server, 'Other Merchant');
  const { platform } = server.runtime;
  jobs = new CardSales(
    platform.db,
    platform.queue,
    new SandboxAcquirer(platform.db),
    platform.config.secretsKey,
    {
      allowPrivateTargets: true,
    },
  );
});
afterAll(() => server?.close());

describe('card sales on POST /api/transactions (sandbox acquirer)', () => {
  it('approved and captured: PAGO with brand, last four and installments, card fees, the net in available', async () => {
    await updateAccount(db(), merchant.accountId, {
      cardFeePercentE4: 49900,
      cardInstallmentFeePercentE4: 15000,
    });
    const before = await getBalance(db(), merchant.accountId);
    const receivableBefore = await receivableBalance(db(), merchant.accountId);
    const number = cardEnding('1');
    const res = await cardSale({ installments: 3, amount: 10000 }, number);
    expect(res.status, res.text).toBe(201);
    // 4.99% + 2 × 1.5% of 100.00
    expect(res.body).toMatchObject({
      status: 'PAGO',
      paymentMethod: 'CREDIT_CARD',
      amount: 10000,
      systemFee: 799,
      netAmount: 9201,
      cardBrand: 'visa',
      cardLastFour: number.slice(-4),
      installments: 3,
      pixKey: null,
    });
    expect(res.body.completedAt).not.toBeNull();
    expect(res.body).not.toHaveProperty('pixQrCode');
    expect(res.body).not.toHaveProperty('refusalReason');
    // the net waits in receivable, installment by installment (test/ledger/receivables.test.ts)
    const after = await getBalance(db(), merchant.accountId);
    expect(after.available - before.available).toBe(0);
    expect((await receivableBalance(db(), merchant.accountId)) - receivableBefore).toBe(9201);
    const events = await eventsOf(server, 'sale', res.body.id);
    expect(events.map((e) => e.event_type)).toEqual(['sale.paid']);
    expect(JSON.parse(events[0]!.webhook_body)).toMatchObject({
      status: 'PAGO',
      paymentMethod: 'CREDIT_CARD',
      cardBrand: 'visa',
      cardLastFour: number.slice(-4),
      installments: 3,
    });
    const lookup = await call<CardSale>('GET', `${server.url}/api/transactions/${res.body.uuid}`, {
      headers: merchant.keys,
    });
    expect(lookup.body).toMatchObject({ status: 'PAGO', cardBrand: 'visa', installments: 3 });
    await updateAccount(db(), merchant.accountId, { cardFeePercentE4: 0, cardInstallmentFeePercentE4: 0 });
  });

  it('authorize only: EM_PROCESSAMENTO, then a partial capture makes it PAGO for the captured amount', async () => {
    const res = await cardSale({ capture: false, amount: 10000 });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ status: 'EM_PROCESSAMENTO', completedAt: null });
    // a charge of this route carries expiresAt (the contract): a card's is when its authorization ends, 7 days on
    const expiresAt = Date.parse((res.body as unknown as { expiresAt: string }).expiresAt);
    expect(Math.round((expiresAt - Date.parse(res.body.date)) / 3_600_000)).toBe(7 * 24);
    expect(await eventsOf(server, 'sale', res.body.id)).toEqual([]);
    const tooMuch = await capture(res.body.id, { amountCents: 10001 });
    expect(tooMuch.status, tooMuch.text).toBe(400);
    expect(tooMuch.body).toMatchObject({ error: 'VALIDATION_ERROR' });
    expect((await capture(res.body.id, { amountCents: 6000 }, other)).status).toBe(403);
    const captured = await capture(res.body.uuid, { amountCents: 6000 });
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body).toMatchObject({ status: 'PAGO', amount: 6000, netAmount: 6000, systemFee: 0 });
    const again = await capture(res.body.id);
    expect(again.status).toBe(409);
    const [paid] = await eventsOf(server, 'sale', res.body.id);
    expect(JSON.parse(paid!.webhook_body)).toMatchObject({ amount: '6000', status: 'PAGO' });
  });

  it('concurrent captures of one authorization: exactly one captures, and its answer is its own amount; the rest 409', async () => {
    for (let round = 0; round < 10; round++) {
      const res = await cardSale({ capture: false, amount: 9000 });
      expect(res.status, res.text).toBe(201);
      const asked = [3000, 9000, 4500];
      const answers = await Promise.all(asked.map((amountCents) => capture(res.body.id, { amountCents })));
      const won = answers.flatMap((a, i) => (a.status === 200 ? [{ a, amount: asked[i]! }] : []));
      expect(won, JSON.stringify(answers.map((a) => a.status))).toHaveLength(1);
      expect(won[0]!.a.body).toMatchObject({ status: 'PAGO', amount: won[0]!.amount });
      for (const a of answers.filter((x) => x.status !== 200)) {
        expect(a.status, a.text).toBe(409);
        expect(a.body).toMatchObject({ error: 'CONFLICT' });
      }
      const [row] = await server.runtime.platform.db.query<{ captured_amount: string }>(
        'SELECT captured_amount FROM card_payments WHERE sale_id = $1',
        [res.body.id],
      );
      expect(Number(row!.captured_amount)).toBe(won[0]!.amount);
    }
  });

  it('capture of the whole authorization when no amount is given', async () => {
    const res = await cardSale({ capture: false, amount: 4321 });
    const captured = await capture(res.body.id);
    expect(captured.status, captured.text).toBe(200);
    expect(captured.body).toMatchObject({ status: 'PAGO', amount: 4321 });
  });

  it('cancel of an authorization not captured: voided at the acquirer, CANCELADO, sale.canceled; then neither captured nor cancelled again', async () => {
    const res = await cardSale({ capture: false, amount: 5500, installments: 3 });
    expect(res.body).toMatchObject({ status: 'EM_PROCESSAMENTO' });
    const cancel = (id: number | string, who = merchant) =>
      call<CardSale>('POST', `${server.url}/api/transactions/${id}/cancel`, { headers: who.keys });
    expect((await cancel(res.body.id, other)).status).toBe(403);
    const canceled = await cancel(res.body.uuid);
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'CANCELADO', installments: 3 });
    const [row] = await db().query<{ state: string }>('SELECT state FROM card_payments WHERE sale_id = $1', [
      res.body.id,
    ]);
    expect(row!.state).toBe('voided');
    const events = await eventsOf(server, 'sale', res.body.id);
    expect(events.map((e) => e.event_type)).toEqual(['sale.canceled']);
    const again = await cancel(res.body.id);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'INVALID_STATUS' });
    expect((await capture(res.body.id)).status).toBe(409);

    // a captured card sale is refunded, never cancelled
    const paid = await cardSale({ amount: 1200 });
    const refused = await cancel(paid.body.id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: 'INVALID_STATUS' });
  });

  it("denied: RECUSADO with the acquirer's refusalReason, notified as sale.refused", async () => {
    const res = await cardSale({}, cardEnding('2'));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      status: 'RECUSADO',
      refusalReason: { code: '05', message: 'Não Autorizada' },
    });
    const events = await eventsOf(server, 'sale', res.body.id);
    expect(events.map((e) => e.event_type)).toEqual(['sale.refused']);
    expect(JSON.parse(events[0]!.webhook_body)).toMatchObject({
      status: 'RECUSADO',
      refusalReason: { code: '05', message: 'Não Autorizada' },
    });
    const expired = await cardSale({}, cardEnding('3'));
    expect(expired.body.refusalReason).toEqual({ code: '57', message: 'Cartão Expirado' });
  });

  it('an acquirer that never answers leaves the sale PENDENTE; the resolving job makes it FALHA', async () => {
    server.logs.expect('card authorization outcome unknown');
    const res = await cardSale({}, cardEnding('6'));
    expect(res.status, res.text).toBe(201);
    expect(res.body.status).toBe('PENDENTE');
    expect(await jobs.resolveUnknown()).toBe(0); // not yet: the answer may still come
    await db().query(
      "UPDATE card_payments SET updated_at = now() - interval '2 minutes' WHERE sale_id = $1",
      [res.body.id],
    );
    expect(await jobs.resolveUnknown()).toBe(1);
    const after = await call<CardSale>('GET', `${server.url}/api/transactions/${res.body.id}`, {
      headers: merchant.keys,
    });
    expect(after.body.status).toBe('FALHA');
    expect(after.body.refusalReason).toEqual({
      code: 'no_answer',
      message: 'A adquirente não respondeu à autorização e não tem pagamento deste pedido: nada foi cobrado',
    });
    expect((await eventsOf(server, 'sale', res.body.id)).map((e) => e.event_type)).toEqual(['sale.refused']);
  });

  it('an authorization not captured within 7 days is voided at the acquirer: CANCELADO', async () => {
    const res = await cardSale({ capture: false });
    expect(res.body.status).toBe('EM_PROCESSAMENTO');
    expect(await jobs.voidExpired()).toBe(0);
    await db().query(
      "UPDATE card_payments SET authorized_at = now() - interval '7 days 1 minute' WHERE sale_id = $1",
      [res.body.id],
    );
    const late = await capture(res.body.id);
    expect(late.status).toBe(409);
    expect(await jobs.voidExpired()).toBe(1);
    const [row] = await db().query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [
      res.body.id,
    ]);
    expect(row!.status).toBe('CANCELADO');
    expect((await eventsOf(server, 'sale', res.body.id)).map((e) => e.event_type)).toEqual(['sale.canceled']);
  });

  it('a token is used once; debit takes no installments; card fields only on card sales', async () => {
    const token = await tokenFor(cardEnding('0'));
    const debit = await sell(saleInput({ paymentMethod: 'DEBIT_CARD', card: { token }, installments: 2 }));
    expect(debit.status, debit.text).toBe(400);
    const first = await sell(saleInput({ paymentMethod: 'DEBIT_CARD', card: { token } }));
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ status: 'PAGO', paymentMethod: 'DEBIT_CARD', installments: null });
    const reused = await sell(saleInput({ paymentMethod: 'DEBIT_CARD', card: { token } }));
    expect(reused.status).toBe(400);
    expect(reused.text).toContain('card.token');
    const otherToken = await tokenFor(cardEnding('0'), other);
    const foreign = await sell(saleInput({ paymentMethod: 'CREDIT_CARD', card: { token: otherToken } }));
    expect(foreign.status).toBe(400);
    const noCard = await sell(saleInput({ paymentMethod: 'CREDIT_CARD' }));
    expect(noCard.status).toBe(400);
    const pix = await sell(saleInput({ installments: 2 }));
    expect(pix.status).toBe(400);
    const thirteen = await cardSale({ installments: 13 });
    expect(thirteen.status).toBe(400);
    const pixSale = await sell(saleInput());
    expect((await capture(pixSale.body.id)).status).toBe(409);
  });

  it('replays a card sale under the same Idempotency-Key without a second authorization', async () => {
    const token = await tokenFor(cardEnding('0'));
    const body = saleInput({ paymentMethod: 'CREDIT_CARD', card: { token } });
    const first = await sell(body, { 'idempotency-key': 'card-order-1' });
    expect(first.status, first.text).toBe(201);
    const second = await sell(body, { 'idempotency-key': 'card-order-1' });
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.uuid).toBe(first.body.uuid);
    const [count] = await db().query<{ n: number }>(
      'SELECT count(*)::int AS n FROM card_payments WHERE account_id = $1 AND order_id = $2',
      [merchant.accountId, first.body.uuid],
    );
    expect(count!.n).toBe(1);
  });

  it('the test card numbers docs/decisions.md lists decide as documented', async () => {
    expect((await cardSale({}, '4000000000000010')).body.status).toBe('PAGO');
    expect((await cardSale({}, '4000000000000002')).body).toMatchObject({
      status: 'RECUSADO',
      refusalReason: { code: '05' },
    });
    server.logs.expect('card authorization outcome unknown');
    expect((await cardSale({}, '4000000000000036')).body.status).toBe('PENDENTE');
  });

  it('card sales opened at once (their writes shared) each end as their card says, with one payment each', async () => {
    // approved and captured, denied, authorized only: mixed in every shared transaction
    const kinds = Array.from({ length: 24 }, (_, i) => (['0', '2', 'hold'] as const)[i % 3]!);
    const tokens = await Promise.all(kinds.map((k) => tokenFor(cardEnding(k === 'hold' ? '0' : k))));
    const answers = await Promise.all(
      kinds.map((k, i) =>
        sell(saleInput({ paymentMethod: 'CREDIT_CARD', card: { token: tokens[i] }, capture: k !== 'hold' })),
      ),
    );
    const want = { '0': 'PAGO', '2': 'RECUSADO', hold: 'EM_PROCESSAMENTO' };
    expect(answers.map((a) => a.body.status)).toEqual(kinds.map((k) => want[k]));
    const ids = answers.map((a) => a.body.id);
    const [counts] = await db().query<{ payments: number; orders: number }>(
      `SELECT (SELECT count(*)::int FROM sandbox_acquirer_payments p JOIN card_payments c ON c.order_id = p.order_id
                WHERE c.sale_id = ANY($1)) AS payments,
              (SELECT count(DISTINCT order_id)::int FROM card_payments WHERE sale_id = ANY($1)) AS orders`,
      [ids],
    );
    expect(counts).toEqual({ payments: 24, orders: 24 });
    const denied = answers.find((a) => a.body.status === 'RECUSADO')!;
    expect((await eventsOf(server, 'sale', denied.body.id)).map((e) => e.event_type)).toEqual([
      'sale.refused',
    ]);
  });

  it('one token sent by several card sales at once, beside others: one sale is made with it, the rest refused', async () => {
    const shared = await tokenFor(cardEnding('0'));
    const own = await Promise.all(Array.from({ length: 8 }, () => tokenFor(cardEnding('0'))));
    const bodies = [...own.slice(0, 4), shared, shared, shared, ...own.slice(4)].map((token) =>
      saleInput({ paymentMethod: 'CREDIT_CARD', card: { token } }),
    );
    const answers = await Promise.all(bodies.map((body) => sell(body)));
    const withShared = answers.slice(4, 7);
    expect(withShared.filter((a) => a.status === 201).map((a) => a.body.status)).toEqual(['PAGO']);
    for (const refused of withShared.filter((a) => a.status !== 201)) {
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ message: 'card.token is unknown, used or expired' });
    }
    expect([...answers.slice(0, 4), ...answers.slice(7)].map((a) => `${a.status} ${a.body.status}`)).toEqual(
      Array(8).fill('201 PAGO'),
    );
    // the refused left nothing: one payment names the shared token, and the acquirer was asked once for it
    const [counts] = await db().query<{ payments: number; charged: number }>(
      `SELECT count(*)::int AS payments,
              (SELECT count(*)::int FROM sandbox_acquirer_payments p WHERE p.order_id = ANY(array_agg(c.order_id)))
                AS charged
         FROM card_payments c JOIN card_tokens t ON t.id = c.card_token_id WHERE t.token_hash = $1`,
      [hashSecret(shared)],
    );
    expect(counts).toEqual({ payments: 1, charged: 1 });
  });

  it('leaves the ledger consistent', async () => {
    const report = await verifyLedger(db());
    expect(report.problems).toEqual([]);
  });

  it('leaves no card number or CVV in any table, job payload or log line', async () => {
    const payloads = await db().query<{ name: string; data: unknown }>('SELECT name, data FROM pgboss.job');
    expectNoCardData('the job payloads', JSON.stringify(payloads), numbers, ['731']);
    expectNoCardData('the database', await dumpData(server.databaseUrl), numbers, ['731']);
    expectNoCardData('the logs', logs(), numbers, ['731']);
  });
});

describe('card sales with SANDBOX off and the sandbox acquirer', () => {
  it('are refused: 503 PROCESSOR_UNAVAILABLE (the sandbox approves without charging anyone)', async () => {
    const off = await startServer({ workers: false, env: { SANDBOX: 'off' } });
    try {
      const who = await createMerchant(off);
      const tok = await call<{ token: string }>('POST', `${off.url}/api/cards/tokens`, {
        headers: { 'x-api-public-key': who.publicKey },
        body: cardBody(cardEnding('0')),
      });
      expect(tok.status, tok.text).toBe(201);
      const res = await call<{ error: string }>('POST', `${off.url}/api/transactions`, {
        headers: who.keys,
        body: saleInput({ paymentMethod: 'CREDIT_CARD', card: { token: tok.body.token } }),
      });
      expect(res.status, res.text).toBe(503);
      expect(res.body.error).toBe('PROCESSOR_UNAVAILABLE');
    } finally {
      await off.close();
    }
  });
});
