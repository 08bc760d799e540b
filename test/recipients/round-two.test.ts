import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAutomaticPayouts } from '../../src/recipients/index.js';
import { cardBody, cardEnding } from '../cards/cards.js';
import { linkInput, PAYER, sessionInput } from '../checkout/fixtures.js';
import { moveTo, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { createRecipient, recipientBalance } from './fixtures.js';

let server: TestServer;
let platform: TestMerchant;
let other: TestMerchant;
let readKeys: Record<string, string>;
const db = () => server.runtime.platform.db;

interface Page<T> {
  data: T[];
  nextCursor: string | null;
}
interface Line {
  id: number;
  kind: string;
  availableDelta: number;
  availableAfter: number;
  blockedAfter: number;
}

beforeAll(async () => {
  server = await startServer({ workers: false, env: { CARD_SETTLEMENT_DAYS: '30' } });
  platform = await createMerchant(server, 'Marketplace');
  other = await createMerchant(server, 'Outra plataforma');
  const key = await call<{ publicKey: string; privateKey: string }>('POST', `${server.url}/api/credentials`, {
    headers: platform.panel,
    body: { scope: 'read' },
  });
  expect(key.status, key.text).toBe(201);
  readKeys = { 'x-api-public-key': key.body.publicKey, 'x-api-private-key': key.body.privateKey };
});
afterAll(() => server?.close());

const patch = (id: string, body: unknown, headers = platform.keys) =>
  call<Record<string, unknown>>('PATCH', `${server.url}/api/recipients/${id}`, { headers, body });

/** A card token of the platform's (a sandbox card the acquirer approves). */
async function cardToken(): Promise<string> {
  const tok = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': platform.publicKey },
    body: cardBody(cardEnding('0')),
  });
  expect(tok.status, tok.text).toBe(201);
  return tok.body.token;
}

async function paidPixSplit(recipientId: string, cents: number) {
  const sale = await call<{ uuid: string }>('POST', `${server.url}/api/transactions`, {
    headers: platform.keys,
    body: saleInput({
      amount: cents + 1000,
      items: [{ title: 'Pedido', unitPrice: cents + 1000, quantity: 1, tangible: false }],
      split: [{ recipientId, amountCents: cents }],
    }),
  });
  expect(sale.status, sale.text).toBe(201);
  expect((await moveTo(server, platform, sale.body.uuid, 'PAGO')).status).toBe(200);
  return sale.body.uuid;
}

describe('PATCH /api/recipients/{id}', () => {
  it('changes the fields given, never the document; another account’s is not found', async () => {
    const r = await createRecipient(server, platform);
    const res = await patch(r.id, {
      name: 'Loja da Ana Ltda',
      email: 'financeiro@example.com',
      pixKey: '+5511987654321',
      pixKeyType: 'PHONE',
      transferInterval: 'weekly',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      id: r.id,
      name: 'Loja da Ana Ltda',
      document: r.document,
      email: 'financeiro@example.com',
      pixKey: '+5511987654321',
      pixKeyType: 'PHONE',
      transferInterval: 'weekly',
      active: true,
    });
    const read = await call('GET', `${server.url}/api/recipients/${r.id}`, { headers: platform.keys });
    expect(read.body).toEqual(res.body);
    // in the account's audit log, by the key, naming the fields changed
    const audit = await db().query<{ actor_type: string; target: string }>(
      "SELECT actor_type, target FROM audit_log WHERE account_id = $1 AND action = 'recipient.updated'",
      [platform.accountId],
    );
    expect(audit).toEqual([
      {
        actor_type: 'api_key',
        target: `recipient:${r.id} email,name,pix_key,pix_key_type,transfer_interval`,
      },
    ]);

    const doc = await patch(r.id, { document: '11144477735' });
    expect(doc.status).toBe(400);
    expect(doc.body).toMatchObject({ error: 'VALIDATION_ERROR' });
    expect(String(doc.body.message)).toMatch(/document/);
    const badKey = await patch(r.id, { pixKey: 'not-a-phone' });
    expect(badKey.status).toBe(400);
    const extra = await patch(r.id, { balance: 1 });
    expect(extra.status).toBe(400);
    expect(String(extra.body.message)).toMatch(/balance/);
    // a body naming no field changes nothing: the recipient as it is, nothing audited
    const none = await patch(r.id, {});
    expect(none.status, none.text).toBe(200);
    expect(none.body).toEqual(read.body);
    expect(
      await db().query("SELECT 1 FROM audit_log WHERE account_id = $1 AND action = 'recipient.updated'", [
        platform.accountId,
      ]),
    ).toHaveLength(1);

    expect((await patch(r.id, { name: 'Outro' }, other.keys)).status).toBe(404);
    // a read key reads, never changes
    expect((await patch(r.id, { name: 'Outro' }, readKeys)).status).toBe(403);
    const unchanged = await call<{ name: string }>('GET', `${server.url}/api/recipients/${r.id}`, {
      headers: readKeys,
    });
    expect(unchanged.body.name).toBe('Loja da Ana Ltda');
  });

  it('refuses a name a mail client would make a link of, at creation and on change', async () => {
    const bad = await call<{ error: string; message: string }>('POST', `${server.url}/api/recipients`, {
      headers: platform.keys,
      body: {
        name: 'Atualize em http://evil.example/login',
        document: '529.982.247-25',
        email: 'ana@example.com',
        pixKey: 'ana@example.com',
        pixKeyType: 'EMAIL',
      },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('VALIDATION_ERROR');
    expect(bad.body.message).toMatch(/^name /);
    const r = await createRecipient(server, platform);
    for (const name of [
      'Loja www.evil.example',
      'Ana evil.com',
      'Ana 10.0.0.1',
      'Ana\nLinha',
      'Ana ｈｔｔｐ：／／x',
    ]) {
      const res = await patch(r.id, { name });
      expect(res.status, name).toBe(400);
      expect(String(res.body.message)).toMatch(/^name /);
    }
    expect((await patch(r.id, { name: 'Ana S.A. 2.0' })).status).toBe(200);
  });

  it('an inactive recipient takes no new split (charge, link, checkout session); its money goes on', async () => {
    const r = await createRecipient(server, platform, { transferInterval: 'daily' });
    await paidPixSplit(r.id, 50_000);
    // a payment link made while it took splits
    const before = await call<{ slug: string }>('POST', `${server.url}/api/payment-links`, {
      headers: platform.keys,
      body: linkInput({ amountCents: 20000, split: [{ recipientId: r.id, amountCents: 1000 }] }),
    });
    expect(before.status, before.text).toBe(201);
    const off = await patch(r.id, { active: false });
    expect(off.status, off.text).toBe(200);
    expect(off.body.active).toBe(false);

    const split = [{ recipientId: r.id, amountCents: 1000 }];
    const charge = await call<{ error: string; message: string }>('POST', `${server.url}/api/transactions`, {
      headers: platform.keys,
      body: saleInput({ split }),
    });
    expect(charge.status).toBe(400);
    expect(charge.body.error).toBe('VALIDATION_ERROR');
    expect(charge.body.message).toContain(r.id);
    expect(charge.body.message).toMatch(/inactive/);
    const link = await call<{ message: string }>('POST', `${server.url}/api/payment-links`, {
      headers: platform.keys,
      body: linkInput({ amountCents: 20000, split }),
    });
    expect(link.status).toBe(400);
    expect(link.body.message).toContain(r.id);
    const session = await call<{ message: string }>('POST', `${server.url}/api/checkout/sessions`, {
      headers: platform.keys,
      body: sessionInput({ split }),
    });
    expect(session.status).toBe(400);
    expect(session.body.message).toContain(r.id);
    // the link made before says so to its payer before they type anything, without the platform's data (the
    // recipient's id and name are not the payer's): the page and its payment routes are closed for now
    const page = await call('GET', `${server.url}/pay/${before.body.slug}`);
    expect(page.status).toBe(410);
    expect(page.text).toContain('Este link de pagamento não está aceitando pagamentos agora');
    expect(page.text).not.toContain(r.id);
    const payer = await call<{ error: string; message: string }>(
      'POST',
      `${server.url}/api/public/pay/${before.body.slug}`,
      { body: PAYER },
    );
    expect(payer.status, payer.text).toBe(410);
    expect(payer.body).toEqual({ error: 'GONE', message: 'This page is not taking payments right now' });

    // its balance stays and pays out: by hand, and by its transferInterval
    expect(await recipientBalance(server, platform, r.id)).toMatchObject({ available: 50_000 });
    const cashout = await call('POST', `${server.url}/api/recipients/${r.id}/cashout`, {
      headers: platform.keys,
      body: { amount: 100 },
    });
    expect(cashout.status, cashout.text).toBe(201);
    const round = await runAutomaticPayouts(db(), server.runtime.platform.queue, new Date());
    expect(round.paid).toBeGreaterThanOrEqual(1);
    const after = await recipientBalance(server, platform, r.id);
    expect(after.available).toBe(0);
    expect((await call('GET', `${server.url}/api/public/pay/${before.body.slug}`)).status).toBe(410);

    // active again: it takes splits again
    expect((await patch(r.id, { active: true })).body.active).toBe(true);
    await paidPixSplit(r.id, 700);
    expect((await recipientBalance(server, platform, r.id)).available).toBe(700);
    // and the link made before takes payments again
    expect((await call('GET', `${server.url}/api/public/pay/${before.body.slug}`)).status).toBe(200);
  });

  it("a link whose fee payer's share no longer covers the fee refuses its payer as the shop's refusal (403)", async () => {
    const shop = await createMerchant(server);
    const r = await createRecipient(server, shop);
    const link = await call<{ slug: string }>('POST', `${server.url}/api/payment-links`, {
      headers: shop.keys,
      body: linkInput({
        amountCents: 10000,
        methods: ['PIX'],
        split: [{ recipientId: r.id, amountCents: 9000 }],
      }),
    });
    expect(link.status, link.text).toBe(201);
    // the shop's prices rise past what its own share (1000 cents) pays
    await server.runtime.platform.db.query(
      'UPDATE accounts SET sale_fee_percent_e4 = 200000, sale_fee_fixed = 0 WHERE id = $1',
      [shop.accountId],
    );
    server.logs.expect(/a payer’s payment refused by the shop’s split/);
    const payer = await call<{ error: string; message: string }>(
      'POST',
      `${server.url}/api/public/pay/${link.body.slug}`,
      { body: PAYER },
    );
    expect(payer.status, payer.text).toBe(403);
    expect(payer.body).toEqual({
      error: 'FORBIDDEN',
      message: 'This payment cannot be taken now: the shop must review its settings',
    });
  });
});

describe("a recipient's receivables, withdrawals and statement", () => {
  it('lists its card installments still to come, adding up to its receivable balance', async () => {
    const r = await createRecipient(server, platform);
    const token = await cardToken();
    const sale = await call<{ uuid: string; status: string }>('POST', `${server.url}/api/transactions`, {
      headers: platform.keys,
      body: saleInput({
        amount: 30001,
        paymentMethod: 'CREDIT_CARD',
        installments: 3,
        card: { token },
        split: [{ recipientId: r.id, percent: 50 }],
      }),
    });
    expect(sale.status, sale.text).toBe(201);
    expect(sale.body.status).toBe('PAGO');
    const url = `${server.url}/api/recipients/${r.id}/receivables`;
    const res = await call<{
      data: { date: string; amountCents: number; saleId: string; installment: number }[];
      totalCents: number;
    }>('GET', url, { headers: readKeys });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.map((x) => [x.installment, x.amountCents, x.saleId])).toEqual([
      [1, 5000, sale.body.uuid],
      [2, 5000, sale.body.uuid],
      [3, 5000, sale.body.uuid],
    ]);
    expect(res.body.totalCents).toBe((await recipientBalance(server, platform, r.id)).receivable);
    // its balance's total is an account's: available + blocked, the installments still to come apart
    expect(await recipientBalance(server, platform, r.id)).toEqual({
      available: 0,
      blocked: 0,
      receivable: 15000,
      total: 0,
    });
    // a period: only the first installment's date
    const first = res.body.data[0]!.date;
    const narrow = await call<{ data: unknown[]; totalCents: number }>(
      'GET',
      `${url}?from=${first}&to=${first}`,
      { headers: platform.keys },
    );
    expect(narrow.body).toEqual({ data: [res.body.data[0]], totalCents: 5000 });
    expect((await call('GET', `${url}?from=2026-13-01`, { headers: platform.keys })).status).toBe(400);

    // a liable recipient's share refunded in part: its installments reduced, the last ones first, one taken
    // whole left out; the total is still its receivable balance
    const liable = await createRecipient(server, platform, { name: 'Bia' });
    const token2 = await cardToken();
    const card = await call<{ uuid: string }>('POST', `${server.url}/api/transactions`, {
      headers: platform.keys,
      body: saleInput({
        amount: 30001,
        paymentMethod: 'CREDIT_CARD',
        installments: 3,
        card: { token: token2 },
        split: [{ recipientId: liable.id, percent: 50, liable: true }],
      }),
    });
    expect(card.status, card.text).toBe(201);
    const refunded = await call('POST', `${server.url}/api/transactions/${card.body.uuid}/refund`, {
      headers: platform.keys,
      body: { amountCents: 6000 },
    });
    expect(refunded.status, refunded.text).toBeLessThan(300);
    const after = await call<{ data: { installment: number; amountCents: number }[]; totalCents: number }>(
      'GET',
      `${server.url}/api/recipients/${liable.id}/receivables`,
      { headers: platform.keys },
    );
    expect(after.body.data.every((x) => x.amountCents > 0)).toBe(true);
    expect(after.body.data.map((x) => x.installment)).toEqual([1, 2]);
    expect(after.body.data[0]!.amountCents).toBe(5000);
    expect(after.body.totalCents).toBeLessThan(10_000);
    expect(after.body.totalCents).toBe((await recipientBalance(server, platform, liable.id)).receivable);
    // another platform's recipient: not found, in shape D
    const foreign = await call('GET', url, { headers: other.keys });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ error: 'NOT_FOUND' });
    // the panel's door: the same answer; another account's in shape A
    const panel = await call('GET', url, { headers: platform.panel });
    expect(panel.body).toEqual(res.body);
    const panelForeign = await call('GET', url, { headers: other.panel });
    expect(panelForeign.status).toBe(404);
    expect(panelForeign.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });

  it("a card sale split whole to a recipient puts no installments of nothing in the platform's schedule", async () => {
    const r = await createRecipient(server, platform, { name: 'Toda' });
    const token = await cardToken();
    const sale = await call<{ uuid: string; status: string }>('POST', `${server.url}/api/transactions`, {
      headers: platform.keys,
      body: saleInput({
        amount: 20000,
        paymentMethod: 'CREDIT_CARD',
        installments: 2,
        card: { token },
        split: [{ recipientId: r.id, percent: 100, chargeFees: true }],
      }),
    });
    expect(sale.status, sale.text).toBe(201);
    expect(sale.body.status).toBe('PAGO');
    const mine = await call<{ data: { installments: { saleUuid: string }[] }[] }>(
      'GET',
      `${server.url}/api/receivables`,
      { headers: platform.keys },
    );
    expect(mine.status, mine.text).toBe(200);
    const ofSale = mine.body.data.flatMap((d) => d.installments).filter((i) => i.saleUuid === sale.body.uuid);
    expect(ofSale).toEqual([]);
    const theirs = await call<{ data: { installment: number; saleId: string }[] }>(
      'GET',
      `${server.url}/api/recipients/${r.id}/receivables`,
      { headers: platform.keys },
    );
    expect(theirs.body.data.filter((x) => x.saleId === sale.body.uuid).map((x) => x.installment)).toEqual([
      1, 2,
    ]);
  });

  it('pages its withdrawals (the Withdrawal objects), not the account’s own', async () => {
    const r = await createRecipient(server, platform);
    await paidPixSplit(r.id, 60_000);
    const made: string[] = [];
    for (const amount of [100, 101, 102]) {
      const c = await call<{ uuid: string }>('POST', `${server.url}/api/recipients/${r.id}/cashout`, {
        headers: platform.keys,
        body: { amount },
      });
      expect(c.status, c.text).toBe(201);
      made.push(c.body.uuid);
    }
    const url = `${server.url}/api/recipients/${r.id}/withdrawals`;
    const first = await call<Page<{ uuid: string; recipientId: string; amount: unknown }>>(
      'GET',
      `${url}?limit=2`,
      { headers: readKeys },
    );
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.map((w) => w.uuid)).toEqual([made[2], made[1]]);
    expect(first.body.data.every((w) => w.recipientId === r.id)).toBe(true);
    const second = await call<Page<{ uuid: string }>>(
      'GET',
      `${url}?limit=2&cursor=${first.body.nextCursor}`,
      { headers: readKeys },
    );
    expect(second.body.data.map((w) => w.uuid)).toEqual([made[0]]);
    expect(second.body.nextCursor).toBeNull();
    // the same object the withdrawal lookup answers
    const one = await call('GET', `${server.url}/api/public/cashout/${made[2]}`, { headers: platform.keys });
    expect(first.body.data[0]).toEqual(one.body);
    expect((await call('GET', url, { headers: other.keys })).status).toBe(404);
  });

  it("pages its ledger lines as the account's statement, with its balances after each", async () => {
    const r = await createRecipient(server, platform);
    await paidPixSplit(r.id, 40_000);
    await paidPixSplit(r.id, 30_000);
    const cashout = await call('POST', `${server.url}/api/recipients/${r.id}/cashout`, {
      headers: platform.keys,
      body: { amount: 100 },
    });
    expect(cashout.status, cashout.text).toBe(201);
    const balance = await recipientBalance(server, platform, r.id);
    const url = `${server.url}/api/recipients/${r.id}/statement`;
    const first = await call<Page<Line>>('GET', `${url}?limit=2`, { headers: readKeys });
    expect(first.status, first.text).toBe(200);
    expect(first.body.data[0]!.kind).toBe('withdrawal.create');
    expect(first.body.data[0]!.availableAfter).toBe(balance.available);
    expect(first.body.data[0]!.blockedAfter).toBe(balance.blocked);
    const rest = await call<Page<Line>>('GET', `${url}?limit=2&cursor=${first.body.nextCursor}`, {
      headers: readKeys,
    });
    const lines = [...first.body.data, ...rest.body.data];
    expect(lines.map((l) => l.kind)).toEqual(['withdrawal.create', 'sale.paid', 'sale.paid']);
    expect(lines.map((l) => l.availableDelta).slice(1)).toEqual([30_000, 40_000]);
    expect(lines.at(-1)!.availableAfter).toBe(40_000);
    expect(rest.body.nextCursor).toBeNull();
    // the account's own statement is the account's: none of these lines
    const own = await call<Page<Line>>('GET', `${server.url}/api/statement?limit=100`, {
      headers: platform.panel,
    });
    expect(own.body.data.some((l) => l.id === first.body.data[0]!.id && l.kind === 'withdrawal.create')).toBe(
      false,
    );
    // a cursor is the recipient's: another recipient's list refuses it
    const s = await createRecipient(server, platform);
    const foreignCursor = await call(
      'GET',
      `${server.url}/api/recipients/${s.id}/statement?cursor=${first.body.nextCursor}`,
      {
        headers: readKeys,
      },
    );
    expect(foreignCursor.status).toBe(400);
    expect((await call('GET', url, { headers: other.keys })).status).toBe(404);
    // the panel's door
    const panel = await call<Page<Line>>('GET', `${url}?limit=2`, { headers: platform.panel });
    expect(panel.body).toEqual(first.body);
  });
});
