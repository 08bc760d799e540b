import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/verify.js';
import { WithdrawalCreator } from '../../src/withdrawals/index.js';
import { moveTo, saleInput } from '../sales/fixtures.js';
import { waitForStatus, withdrawalEvents } from '../support/cashouts.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { createRecipient, type RecipientBody, recipientBalance } from './fixtures.js';

let server: TestServer;
let platform: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  server = await startServer();
  platform = await createMerchant(server, 'Marketplace');
  other = await createMerchant(server, 'Outra loja');
});
afterAll(() => server?.close());

const db = () => server.runtime.platform.db;

/** A paid PIX sale whose split gives the recipient `cents` (the platform pays the fees). */
async function fund(r: RecipientBody, cents: number) {
  const sale = await call<{ uuid: string }>('POST', `${server.url}/api/transactions`, {
    headers: platform.keys,
    body: saleInput({
      amount: cents + 1000,
      items: [{ title: 'Pedido', unitPrice: cents + 1000, quantity: 1, tangible: false }],
      split: [{ recipientId: r.id, amountCents: cents }],
    }),
  });
  expect(sale.status, sale.text).toBe(201);
  const paid = await moveTo(server, platform, sale.body.uuid, 'PAGO');
  expect(paid.status, paid.text).toBe(200);
}

interface Created {
  id: number;
  uuid: string;
  status: string;
  amount: string;
  pixKey: string;
  pixKeyType: string;
  recipientId?: string;
}

const cashout = (id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  call<Created & { message: string; errorType: string; error: string }>(
    'POST',
    `${server.url}/api/recipients/${id}/cashout`,
    { headers: { ...platform.keys, ...headers }, body },
  );

const platformBalance = async () =>
  (await call<Record<string, number>>('GET', `${server.url}/api/public/balance`, { headers: platform.keys }))
    .body;

describe("a recipient's cashout", () => {
  it("pays the recipient's own PIX key from its balance, goes through the payout path and is notified to the platform with recipientId", async () => {
    const r = await createRecipient(server, platform);
    await fund(r, 50_000);
    const before = await platformBalance();

    const res = await cashout(r.id, { amount: 150 });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      amount: '150.00',
      pixKey: 'ana@example.com',
      pixKeyType: 'EMAIL',
      status: 'PENDING',
      recipientId: r.id,
    });
    expect(await recipientBalance(server, platform, r.id)).toMatchObject({
      available: 35_000,
      blocked: 15_000,
    });
    expect(await platformBalance()).toEqual(before);

    await waitForStatus(server.url, platform, res.body.uuid, 'PROCESSING');
    const done = await call<Created>('POST', `${server.url}/api/sandbox/cashouts/${res.body.uuid}/result`, {
      headers: platform.keys,
      body: { result: 'COMPLETED' },
    });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ status: 'COMPLETED', recipientId: r.id });
    expect(await recipientBalance(server, platform, r.id)).toMatchObject({ available: 35_000, blocked: 0 });
    expect(await platformBalance()).toEqual(before);

    const lookup = await call<Created>('GET', `${server.url}/api/public/cashout/${res.body.uuid}`, {
      headers: platform.keys,
    });
    expect(lookup.body).toMatchObject({ status: 'COMPLETED', recipientId: r.id });

    const events = await withdrawalEvents(db(), res.body.id);
    expect(events.map((e) => e.event_type)).toEqual(['withdrawal.pending', 'withdrawal.completed']);
    for (const e of events) {
      const body = JSON.parse(e.webhook_body);
      expect(body).toMatchObject({ recipientId: r.id, userId: platform.accountId, type: 'WITHDRAWAL' });
    }
    const [owner] = await db().query<{ account_id: number }>(
      `SELECT DISTINCT account_id FROM notification_events WHERE subject_type = 'withdrawal' AND subject_id = $1`,
      [res.body.id],
    );
    expect(Number(owner!.account_id)).toBe(platform.accountId);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it('a rejected payout gives the money back to the recipient, not the platform', async () => {
    const r = await createRecipient(server, platform);
    await fund(r, 20_000);
    const before = await platformBalance();
    const res = await cashout(r.id, { amount: '120.00', pixKey: '52998224725', pixKeyType: 'CPF' });
    expect(res.status, res.text).toBe(201);
    expect(res.body.pixKey).toBe('52998224725');
    await waitForStatus(server.url, platform, res.body.uuid, 'PROCESSING');
    const failed = await call('POST', `${server.url}/api/sandbox/cashouts/${res.body.uuid}/result`, {
      headers: platform.keys,
      body: { result: 'REJECTED' },
    });
    expect(failed.status, failed.text).toBe(200);
    expect(await recipientBalance(server, platform, r.id)).toMatchObject({ available: 20_000, blocked: 0 });
    expect(await platformBalance()).toEqual(before);
    const events = await withdrawalEvents(db(), res.body.id);
    expect(events.map((e) => JSON.parse(e.webhook_body).recipientId)).toEqual([r.id, r.id]);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it("answers the cashout's limits and errors in its shapes, and another account's recipient is not found", async () => {
    const r = await createRecipient(server, platform);
    await fund(r, 15_000);

    const low = await cashout(r.id, { amount: 99.99 });
    expect(low.status).toBe(422);
    expect(low.body).toEqual({ message: 'The minimum cashout amount is 100.00', errorType: 'MINIMUM_VALUE' });
    const high = await cashout(r.id, { amount: 100000.01 });
    expect(high.status).toBe(422);
    expect(high.body.errorType).toBe('MAXIMUM_VALUE');
    const short = await cashout(r.id, { amount: 150.01 });
    expect(short.status).toBe(422);
    expect(short.body.errorType).toBe('INSUFFICIENT_BALANCE');
    const bad = await cashout(r.id, { amount: 'abc' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('VALIDATION_ERROR');
    const badKey = await cashout(r.id, { amount: 100, pixKey: '123', pixKeyType: 'CPF' });
    expect(badKey.status).toBe(400);
    // a type alone names no key: one other than the recipient's own key's is refused, not dropped
    const typeAlone = await cashout(r.id, { amount: 100, pixKeyType: 'RANDOM' });
    expect(typeAlone.status).toBe(400);
    expect(typeAlone.body).toEqual({
      error: 'VALIDATION_ERROR',
      message: `pixKeyType "RANDOM" needs a pixKey: without one the recipient's own key is paid, of type ${r.pixKeyType}`,
    });
    const badType = await cashout(r.id, { amount: 100, pixKeyType: 'email' });
    expect(badType.body).toEqual({
      error: 'VALIDATION_ERROR',
      message: 'pixKeyType must be one of CPF, CNPJ, EMAIL, PHONE, RANDOM',
    });
    // an amount that is no number, in words: which types it may be
    const nothing = await cashout(r.id, { amount: null });
    expect(nothing.body).toEqual({
      error: 'VALIDATION_ERROR',
      message: 'Invalid body/amount: must be a finite number or a string',
    });

    const foreign = await call<{ message: string; error: string }>(
      'POST',
      `${server.url}/api/recipients/${r.id}/cashout`,
      { headers: other.keys, body: { amount: 100 } },
    );
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: 'Recipient not found', error: 'NOT_FOUND' });
    const junk = await cashout('not-an-id', { amount: 100 });
    expect(junk.status).toBe(404);
    // a key narrower than full is refused as on the account's cashout (403 shape C), nothing written
    const charges = await call<{ publicKey: string; privateKey: string }>(
      'POST',
      `${server.url}/api/credentials`,
      { headers: platform.panel, body: { name: 'cobranças', scope: 'charges' } },
    );
    expect(charges.status, charges.text).toBe(201);
    const narrow = await call<{ errorType: string }>('POST', `${server.url}/api/recipients/${r.id}/cashout`, {
      headers: {
        'x-api-public-key': charges.body.publicKey,
        'x-api-private-key': charges.body.privateKey,
      },
      body: { amount: 100 },
    });
    expect(narrow.status).toBe(403);
    expect(narrow.body.errorType).toBe('FORBIDDEN');
    expect(await recipientBalance(server, platform, r.id)).toMatchObject({ available: 15_000, blocked: 0 });
  });

  it('honours Idempotency-Key: a replay answers the first withdrawal; the key on another recipient is reused', async () => {
    const r = await createRecipient(server, platform);
    const s = await createRecipient(server, platform, { name: 'Seu João' });
    await fund(r, 30_000);
    await fund(s, 30_000);
    const key = { 'idempotency-key': `rc-${Date.now()}` };
    const first = await cashout(r.id, { amount: 100 }, key);
    expect(first.status, first.text).toBe(201);
    const again = await cashout(r.id, { amount: 100 }, key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.uuid).toBe(first.body.uuid);
    const elsewhere = await cashout(s.id, { amount: 100 }, key);
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.errorType).toBe('IDEMPOTENCY_KEY_REUSED');
    // nor may the account's own cashout route take a recipient's key
    const own = await call<{ errorType: string }>('POST', `${server.url}/api/public/cashout`, {
      headers: { ...platform.keys, ...key },
      body: { amount: 100, pixKey: 'ana@example.com', pixKeyType: 'EMAIL' },
    });
    expect(own.status).toBe(422);
    expect(own.body.errorType).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await recipientBalance(server, platform, r.id)).available).toBe(20_000);
    expect((await recipientBalance(server, platform, s.id)).available).toBe(30_000);
  });

  it('never takes the balance below zero under concurrent requests (one server, and two creators as two processes would)', async () => {
    const r = await createRecipient(server, platform);
    await fund(r, 100_000);
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        cashout(r.id, { amount: 100 }, { 'idempotency-key': `conc-${r.id}-${i}` }),
      ),
    );
    const statuses = results.map((x) => x.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(results.filter((x) => x.status === 422).map((x) => x.body.errorType)).toEqual(
      Array(6).fill('INSUFFICIENT_BALANCE'),
    );
    expect(await recipientBalance(server, platform, r.id)).toMatchObject({ available: 0, blocked: 100_000 });

    // two creators (each with its own lanes, as two gateway processes) racing on one recipient's balance
    const s = await createRecipient(server, platform, { name: 'Dois processos' });
    await fund(s, 50_000);
    const [sid] = await db().query<{ id: number }>('SELECT id FROM recipients WHERE uuid = $1', [s.id]);
    const ref = { id: Number(sid!.id), uuid: s.id };
    const a = new WithdrawalCreator(db(), server.runtime.platform.queue);
    const b = new WithdrawalCreator(db(), server.runtime.platform.queue);
    const req = { amountCents: 10_000, pixKey: 'ana@example.com', pixKeyType: 'EMAIL' as const };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? a : b).createForRecipient(platform.accountId, ref, req, `two-${s.id}-${i}`),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(5);
    expect(await recipientBalance(server, platform, s.id)).toMatchObject({ available: 0, blocked: 50_000 });
    const [neg] = await db().query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ledger_accounts WHERE recipient_id IS NOT NULL AND balance < 0`,
    );
    expect(neg!.n).toBe(0);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });
});
