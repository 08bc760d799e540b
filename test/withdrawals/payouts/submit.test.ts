import { afterAll, beforeAll, expect, it } from 'vitest';
import { verifyLedger } from '../../../src/ledger/verify.js';
import type { Db } from '../../../src/platform/db/db.js';
import { submitPayouts } from '../../../src/withdrawals/payouts/payouts.js';
import {
  type PayoutOrder,
  type PayoutProvider,
  ProviderUnavailable,
} from '../../../src/withdrawals/payouts/provider.js';
import { transition, transitionMany } from '../../../src/withdrawals/state.js';
import { createCashout, withdrawalEvents } from '../../support/cashouts.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { fundMerchant } from '../../support/ledger.js';
import { startServer, type TestServer } from '../../support/server.js';

let server: TestServer;
let db: Db;
let m: TestMerchant;

beforeAll(async () => {
  // No workers: the test submits the withdrawals itself, through its own provider.
  server = await startServer({ workers: false });
  db = server.runtime.platform.db;
  m = await createMerchant(server);
  await fundMerchant(db, m.accountId, 10_000_000);
});
afterAll(() => server?.close());

/** A provider that answers after `delayMs`, counts the orders it holds at once, and is down for `down`. */
function slowProvider(delayMs: number, down: Set<string> = new Set()) {
  const seen: string[] = [];
  let holding = 0;
  let most = 0;
  const provider: PayoutProvider = {
    name: 'sandbox',
    async submit(order: PayoutOrder) {
      holding++;
      most = Math.max(most, holding);
      await new Promise((r) => setTimeout(r, delayMs));
      holding--;
      seen.push(order.reference);
      if (down.has(order.reference)) throw new ProviderUnavailable('down for this one');
      return { externalId: `ext-${order.reference}` };
    },
    verifyCallback: () => Promise.reject(new Error('not used')),
  };
  return { provider, seen, most: () => most };
}

const statusOf = async (id: number) =>
  (
    await db.query<{ status: string; submitting_at: Date | null; external_id: string | null }>(
      'SELECT status, submitting_at, external_id FROM withdrawals WHERE id = $1',
      [id],
    )
  )[0]!;

it('sends a batch a few orders at a time and records every submission in one transaction', async () => {
  const created = [];
  for (let i = 0; i < 20; i++) created.push(await createCashout(server.url, m, 100 + i));
  const { provider, seen, most } = slowProvider(30);
  await submitPayouts(
    db,
    provider,
    created.map((w) => w.id),
  );

  expect(seen.sort()).toEqual(created.map((w) => w.uuid).sort()); // each order sent once
  expect(most()).toBeGreaterThan(1);
  expect(most()).toBeLessThanOrEqual(8);
  for (const w of created) {
    const row = await statusOf(w.id);
    expect(row).toMatchObject({ status: 'PROCESSING', external_id: `ext-${w.uuid}` });
    const events = await withdrawalEvents(db, w.id);
    expect(events.map((e) => e.event_type)).toEqual(['withdrawal.pending']);
    expect(JSON.parse(events[0]!.webhook_body)).toMatchObject({ id: w.id, status: 'PROCESSING' });
  }

  // run again (a retried job): nothing is PENDING any more, so nothing is sent or recorded again
  const again = slowProvider(1);
  await submitPayouts(
    db,
    again.provider,
    created.map((w) => w.id),
  );
  expect(again.seen).toEqual([]);
  for (const w of created) expect(await withdrawalEvents(db, w.id)).toHaveLength(1);
  expect((await verifyLedger(db)).ok).toBe(true);
});

it('an order the provider did not take stays PENDING and cancellable; the others go out, and the job fails', async () => {
  const created = [];
  for (let i = 0; i < 5; i++) created.push(await createCashout(server.url, m, 500));
  const refused = created[2]!;
  const { provider } = slowProvider(5, new Set([refused.uuid]));
  await expect(
    submitPayouts(
      db,
      provider,
      created.map((w) => w.id),
    ),
  ).rejects.toBeInstanceOf(ProviderUnavailable);

  expect(await statusOf(refused.id)).toMatchObject({ status: 'PENDING', submitting_at: null });
  expect(await withdrawalEvents(db, refused.id)).toEqual([]);
  for (const w of created.filter((x) => x !== refused))
    expect(await statusOf(w.id)).toMatchObject({ status: 'PROCESSING' });
});

it('a provider with a batch API gets the orders a hundred per request, each answered on its own', async () => {
  const created = [];
  for (let i = 0; i < 130; i++) created.push(await createCashout(server.url, m, 100));
  const requests: string[][] = [];
  const provider: PayoutProvider = {
    name: 'sandbox',
    submit: () => Promise.reject(new Error('the batch API is used')),
    async submitBatch(orders) {
      requests.push(orders.map((o) => o.reference));
      return orders.map((o, i) => ({
        externalId: `batch-${o.reference}`,
        ...(i === 0 ? { rejected: 'no' } : {}),
      }));
    },
    verifyCallback: () => Promise.reject(new Error('not used')),
  };
  await submitPayouts(
    db,
    provider,
    created.map((w) => w.id),
  );
  expect(requests.map((r) => r.length).sort()).toEqual([100, 30]);
  expect(requests.flat().sort()).toEqual(created.map((w) => w.uuid).sort());
  const firstOfEach = new Set(requests.map((r) => r[0]));
  for (const w of created) {
    const row = await statusOf(w.id);
    // the first order of each request was refused for good: sent, then FAILED with its funds back
    expect(row).toMatchObject({
      status: firstOfEach.has(w.uuid) ? 'FAILED' : 'PROCESSING',
      external_id: `batch-${w.uuid}`,
    });
  }
  expect((await verifyLedger(db)).ok).toBe(true);
});

it('moves many withdrawals each on its own: a moved one, one in another status, an unknown id', async () => {
  const a = await createCashout(server.url, m, 700);
  const b = await createCashout(server.url, m, 800);
  await db.tx((tx) => transition(tx, b.id, 'submit', 'ext-b'));
  const results = await db.tx((tx) =>
    transitionMany(
      tx,
      [
        { id: b.id, externalId: 'ext-b2' },
        { id: 999_999_999, externalId: 'ext-x' },
        { id: a.id, externalId: 'ext-a' },
      ],
      'submit',
    ),
  );
  expect(results.map((r) => [r.changed, r.withdrawal?.status ?? null])).toEqual([
    [false, 'PROCESSING'],
    [false, null],
    [true, 'PROCESSING'],
  ]);
  expect(results[0]!.withdrawal?.external_id).toBe('ext-b'); // not rewritten by the refused move
  expect(results[2]!.withdrawal?.external_id).toBe('ext-a');
  expect((await withdrawalEvents(db, a.id)).map((e) => e.event_type)).toEqual(['withdrawal.pending']);
  expect((await withdrawalEvents(db, b.id)).map((e) => e.event_type)).toEqual(['withdrawal.pending']);
});
