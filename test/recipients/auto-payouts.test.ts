import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/verify.js';
import { duePeriods, runAutomaticPayouts } from '../../src/recipients/index.js';
import { moveTo, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { createRecipient, type RecipientBody, recipientBalance } from './fixtures.js';

describe('duePeriods (06:00 America/Sao_Paulo)', () => {
  it('is the day whose 06:00 passed, and the Monday whose 06:00 passed', () => {
    // Thursday 2026-11-26: 05:59 and 06:00 in São Paulo (UTC−3)
    expect(duePeriods(new Date('2026-11-26T08:59:59Z'))).toEqual({
      daily: '2026-11-25',
      weekly: '2026-11-23',
    });
    expect(duePeriods(new Date('2026-11-26T09:00:00Z'))).toEqual({
      daily: '2026-11-26',
      weekly: '2026-11-23',
    });
    // Monday 2026-11-23: before 06:00 the week is still the one that began on the 16th
    expect(duePeriods(new Date('2026-11-23T08:59:59Z'))).toEqual({
      daily: '2026-11-22',
      weekly: '2026-11-16',
    });
    expect(duePeriods(new Date('2026-11-23T09:00:00Z'))).toEqual({
      daily: '2026-11-23',
      weekly: '2026-11-23',
    });
    // late evening in São Paulo is already the next day in UTC
    expect(duePeriods(new Date('2026-11-24T02:30:00Z'))).toEqual({
      daily: '2026-11-23',
      weekly: '2026-11-23',
    });
    // Sunday: still the week of the Monday before
    expect(duePeriods(new Date('2026-11-29T20:00:00Z'))).toEqual({
      daily: '2026-11-29',
      weekly: '2026-11-23',
    });
  });
});

let one: TestServer;
let two: TestServer;
let platform: TestMerchant;

beforeAll(async () => {
  one = await startServer({ workers: false });
  // a second gateway process on the same database: the other worker
  two = await startServer({ databaseUrl: one.databaseUrl, workers: false });
  platform = await createMerchant(one, 'Marketplace');
});
afterAll(async () => {
  await two?.close();
  await one?.close();
});

const db = () => one.runtime.platform.db;

async function fund(r: RecipientBody, cents: number) {
  const sale = await call<{ uuid: string }>('POST', `${one.url}/api/transactions`, {
    headers: platform.keys,
    body: saleInput({
      amount: cents + 1000,
      items: [{ title: 'Pedido', unitPrice: cents + 1000, quantity: 1, tangible: false }],
      split: [{ recipientId: r.id, amountCents: cents }],
    }),
  });
  expect(sale.status, sale.text).toBe(201);
  expect((await moveTo(one, platform, sale.body.uuid, 'PAGO')).status).toBe(200);
}

/** Both workers run the same round at once. */
async function race(now: Date) {
  const [a, b] = await Promise.all([
    runAutomaticPayouts(one.runtime.platform.db, one.runtime.platform.queue, now),
    runAutomaticPayouts(two.runtime.platform.db, two.runtime.platform.queue, now),
  ]);
  return { paid: a.paid + b.paid, skipped: a.skipped + b.skipped };
}

const withdrawalsOf = (r: RecipientBody) =>
  db().query<{ amount: number; pix_key: string; status: string; approval_requested_by: string | null }>(
    'SELECT amount, pix_key, status, approval_requested_by FROM withdrawals WHERE recipient_uuid = $1 ORDER BY id',
    [r.id],
  );

describe('automatic payouts by transferInterval', () => {
  it('pays daily and weekly recipients their whole available balance once per period, with two workers racing', async () => {
    const daily = await createRecipient(one, platform, { name: 'Diária', transferInterval: 'daily' });
    const weekly = await createRecipient(one, platform, {
      name: 'Semanal',
      transferInterval: 'weekly',
      pixKey: '52998224725',
      pixKeyType: 'CPF',
    });
    const manual = await createRecipient(one, platform, { name: 'Manual' });
    const small = await createRecipient(one, platform, { name: 'Pouco', transferInterval: 'daily' });
    await fund(daily, 50_000);
    await fund(weekly, 30_000);
    await fund(manual, 40_000);
    await fund(small, 5_000);

    // Wednesday 2026-11-25 at 06:00:01 São Paulo
    const wednesday = new Date('2026-11-25T09:00:01Z');
    const first = await race(wednesday);
    // daily paid; weekly's period (Monday the 23rd) is due too, as it was never paid; small below the minimum
    expect(first).toEqual({ paid: 2, skipped: 1 });
    expect(await withdrawalsOf(daily)).toMatchObject([
      { amount: 50_000, pix_key: 'ana@example.com', approval_requested_by: null },
    ]);
    expect(await withdrawalsOf(weekly)).toMatchObject([{ amount: 30_000, pix_key: '52998224725' }]);
    expect(await withdrawalsOf(manual)).toEqual([]);
    expect(await withdrawalsOf(small)).toEqual([]);
    expect(await recipientBalance(one, platform, daily.id)).toMatchObject({ available: 0, blocked: 50_000 });
    expect(await recipientBalance(one, platform, small.id)).toMatchObject({ available: 5_000 });

    // the same period again, both workers, several rounds: nothing more
    for (let i = 0; i < 3; i++)
      expect(await race(new Date(wednesday.getTime() + i * 60_000))).toEqual({ paid: 0, skipped: 0 });
    const periods = await db().query<{ period: string; reason: string | null; paid: boolean }>(
      `SELECT to_char(p.period_date, 'YYYY-MM-DD') AS period, p.skipped_reason AS reason, p.withdrawal_id IS NOT NULL AS paid
         FROM recipient_payouts p JOIN recipients r ON r.id = p.recipient_id
        WHERE r.uuid = ANY($1::uuid[]) ORDER BY r.id`,
      [[daily.id, weekly.id, small.id]],
    );
    expect(periods).toEqual([
      { period: '2026-11-25', reason: null, paid: true },
      { period: '2026-11-23', reason: null, paid: true },
      { period: '2026-11-25', reason: 'MINIMUM_VALUE', paid: false },
    ]);
    // the panel's Recebedores tells each one's latest period: paid, or why not
    const panel = await call<{ data: { name: string; lastAutomaticPayout: unknown }[] }>(
      'GET',
      `${one.url}/api/panel/recipients`,
      { headers: platform.panel },
    );
    expect(Object.fromEntries(panel.body.data.map((r) => [r.name, r.lastAutomaticPayout]))).toEqual({
      Diária: { period: '2026-11-25', paid: true, skippedReason: null },
      Semanal: { period: '2026-11-23', paid: true, skippedReason: null },
      Manual: null,
      Pouco: { period: '2026-11-25', paid: false, skippedReason: 'MINIMUM_VALUE' },
    });

    // Thursday before 06:00: still Wednesday's period; after 06:00: daily again, weekly waits for Monday
    await fund(daily, 20_000);
    await fund(weekly, 20_000);
    expect(await race(new Date('2026-11-26T08:59:00Z'))).toEqual({ paid: 0, skipped: 0 });
    expect(await race(new Date('2026-11-26T09:00:00Z'))).toEqual({ paid: 1, skipped: 1 });
    expect((await withdrawalsOf(daily)).map((w) => w.amount)).toEqual([50_000, 20_000]);
    expect((await withdrawalsOf(weekly)).map((w) => w.amount)).toEqual([30_000]);

    // next Monday at 06:00: both
    await fund(daily, 15_000);
    expect(await race(new Date('2026-11-30T09:00:00Z'))).toEqual({ paid: 2, skipped: 1 });
    expect((await withdrawalsOf(daily)).map((w) => w.amount)).toEqual([50_000, 20_000, 15_000]);
    expect((await withdrawalsOf(weekly)).map((w) => w.amount)).toEqual([30_000, 20_000]);
    expect(await recipientBalance(one, platform, weekly.id)).toMatchObject({ available: 0, blocked: 50_000 });
    expect((await verifyLedger(db())).problems).toEqual([]);

    // each one queued for the payout worker, like an account's cashout
    const [jobs] = await db().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'payouts.submit'`,
    );
    expect(jobs!.n).toBeGreaterThanOrEqual(5);
  });
});
