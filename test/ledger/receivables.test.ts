import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBalance } from '../../src/ledger/ledger.js';
import { receivableBalance, settleDueReceivables } from '../../src/ledger/receivables.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { cardBody, cardEnding } from '../cards/cards.js';
import { saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';

interface Page {
  from: string;
  to: string;
  data: {
    date: string;
    amount: number;
    installments: {
      saleUuid: string;
      installment: number;
      installments: number;
      amount: number;
      settled: boolean;
    }[];
  }[];
}

let server: TestServer;
let merchant: TestMerchant;
const db = () => server.runtime.platform.db;
const DAYS = 10;

const plusDays = (n: number) => {
  const today = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10); // São Paulo (UTC−3)
  return new Date(Date.parse(`${today}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
};

async function cardSale(amount: number, installments: number, extra: Record<string, unknown> = {}) {
  const tok = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': merchant.publicKey },
    body: cardBody(cardEnding('0')),
  });
  const res = await call<{ id: number; uuid: string; status: string }>(
    'POST',
    `${server.url}/api/transactions`,
    {
      headers: merchant.keys,
      body: saleInput({
        amount,
        paymentMethod: 'CREDIT_CARD',
        installments,
        card: { token: tok.body.token },
        ...extra,
      }),
    },
  );
  expect(res.status, res.text).toBe(201);
  return res.body;
}

beforeAll(async () => {
  server = await startServer({ workers: false, env: { CARD_SETTLEMENT_DAYS: String(DAYS) } });
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

describe('card receivables', () => {
  it('a captured card sale puts each installment in receivable, due CARD_SETTLEMENT_DAYS × its number days on', async () => {
    const sale = await cardSale(10000, 3);
    expect(sale.status).toBe('PAGO');
    expect(await getBalance(db(), merchant.accountId)).toMatchObject({ available: 0, blocked: 0 });
    const balance = await call<Record<string, number>>('GET', `${server.url}/api/public/balance`, {
      headers: merchant.keys,
    });
    expect(balance.body).toEqual({ available: 0, blocked: 0, total: 0, receivable: 10000 });
    const page = await call<Page>('GET', `${server.url}/api/receivables`, { headers: merchant.keys });
    expect(page.status, page.text).toBe(200);
    expect(page.body.from).toBe(plusDays(0));
    expect(page.body.to).toBe(plusDays(90));
    expect(page.body.data.map((d) => [d.date, d.amount])).toEqual([
      [plusDays(DAYS), 3334],
      [plusDays(2 * DAYS), 3333],
      [plusDays(3 * DAYS), 3333],
    ]);
    expect(page.body.data[0]!.installments).toEqual([
      { saleUuid: sale.uuid, installment: 1, installments: 3, amount: 3334, settled: false },
    ]);
    const narrow = await call<Page>(
      'GET',
      `${server.url}/api/receivables?from=${plusDays(DAYS + 1)}&to=${plusDays(2 * DAYS)}`,
      { headers: merchant.keys },
    );
    expect(narrow.body.data.map((d) => d.amount)).toEqual([3333]);
    const panel = await call<Page>('GET', `${server.url}/api/panel/receivables`, { headers: merchant.panel });
    expect(panel.status, panel.text).toBe(200);
    expect(panel.body.data).toEqual(page.body.data);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it('refuses a malformed or reversed period: 400', async () => {
    for (const q of ['from=2026-02-30', 'to=tomorrow', `from=${plusDays(5)}&to=${plusDays(1)}`]) {
      const res = await call<{ error: string }>('GET', `${server.url}/api/receivables?${q}`, {
        headers: merchant.keys,
      });
      expect(res.status, q).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
    }
    // a reversed period in the words every list uses
    const reversed = await call<{ message: string }>(
      'GET',
      `${server.url}/api/receivables?from=${plusDays(5)}&to=${plusDays(1)}`,
      { headers: merchant.keys },
    );
    expect(reversed.body.message).toBe('from must not be after to');
  });

  it('the daily job moves what is due to available, once, with a ledger entry each', async () => {
    await db().query(
      `UPDATE receivables SET due_date = due_date - ${DAYS} WHERE account_id = $1 AND installment = 1`,
      [merchant.accountId],
    );
    expect(await settleDueReceivables(db())).toBe(1);
    expect(await settleDueReceivables(db())).toBe(0);
    expect(await getBalance(db(), merchant.accountId)).toMatchObject({ available: 3334 });
    expect(await receivableBalance(db(), merchant.accountId)).toBe(6666);
    const [entry] = await db().query<{ n: number }>(
      "SELECT count(*)::int AS n FROM journal_entries WHERE kind = 'receivable.settled'",
    );
    expect(entry!.n).toBe(1);
    const page = await call<Page>('GET', `${server.url}/api/receivables?from=${plusDays(0)}`, {
      headers: merchant.keys,
    });
    expect(page.body.data[0]!.installments[0]!.settled).toBe(true);
    const statement = await call<{ data: { description: string; availableDelta: number }[] }>(
      'GET',
      `${server.url}/api/statement`,
      { headers: merchant.panel },
    );
    // the statement tells the receivable bucket too: the installment leaves it as it enters available, and the
    // card sale's line shows its net entering it (without, a card sale read as a line of its reserve alone)
    expect(statement.body.data).toContainEqual(
      expect.objectContaining({
        description: 'Parcela de cartão disponível',
        availableDelta: 3334,
        receivableDelta: -3334,
        receivableAfter: 6666,
      }),
    );
    expect(statement.body.data).toContainEqual(
      expect.objectContaining({ kind: 'sale.paid', receivableDelta: 10000, receivableAfter: 10000 }),
    );
    // the running balances agree with the ledger's on every line, the receivable one included
    const lines = statement.body.data as unknown as {
      availableDelta: number;
      receivableDelta: number;
      availableAfter: number;
      receivableAfter: number;
    }[];
    for (let i = 0; i + 1 < lines.length; i++) {
      expect(lines[i + 1]!.receivableAfter).toBe(lines[i]!.receivableAfter - lines[i]!.receivableDelta);
      expect(lines[i + 1]!.availableAfter).toBe(lines[i]!.availableAfter - lines[i]!.availableDelta);
    }
    expect(lines[0]!.receivableAfter).toBe(await receivableBalance(db(), merchant.accountId));
    const csv = await call('GET', `${server.url}/api/statement/export.csv`, { headers: merchant.panel });
    expect(csv.text.split('\n')[0]).toContain(';a_receber;saldo_disponivel;saldo_bloqueado;saldo_a_receber');
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it('a partial capture schedules the captured net; a refused or authorized-only sale schedules nothing', async () => {
    const before = await receivableBalance(db(), merchant.accountId);
    const held = await cardSale(8000, 2, { capture: false });
    expect(held.status).toBe('EM_PROCESSAMENTO');
    expect(await receivableBalance(db(), merchant.accountId)).toBe(before);
    const captured = await call('POST', `${server.url}/api/transactions/${held.id}/capture`, {
      headers: merchant.keys,
      body: { amountCents: 5001 },
    });
    expect(captured.status, captured.text).toBe(200);
    expect(await receivableBalance(db(), merchant.accountId)).toBe(before + 5001);
    const rows = await db().query<{ amount: number }>(
      'SELECT amount FROM receivables WHERE sale_id = $1 ORDER BY installment',
      [held.id],
    );
    expect(rows.map((r) => Number(r.amount))).toEqual([2501, 2500]);
  });

  it('ledger verify finds a receivable bucket that does not match its installments', async () => {
    await db().query(
      'UPDATE receivables SET amount = amount + 1 WHERE id = (SELECT min(id) FROM receivables WHERE settled_at IS NULL)',
    );
    const report = await verifyLedger(db());
    expect(report.problems).toEqual([
      expect.objectContaining({
        kind: 'receivable_mismatch',
        account: `merchant:${merchant.accountId}:receivable`,
      }),
    ]);
    await db().query(
      'UPDATE receivables SET amount = amount - 1 WHERE id = (SELECT min(id) FROM receivables WHERE settled_at IS NULL)',
    );
    expect((await verifyLedger(db())).problems).toEqual([]);
  });
});
