import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../src/accounts/accounts.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { countRows, createLink, type LinkBody, linkInput, PAYER, sessionInput } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;
let other: TestMerchant;

const api = (method: string, path: string, body?: unknown, who = merchant) =>
  call<LinkBody & { message: string; error: string }>(method, `${server.url}${path}`, {
    headers: who.keys,
    body,
  });

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
  other = await createMerchant(server, 'Other Merchant');
});
afterAll(() => server?.close());

describe('POST /api/payment-links', () => {
  it('creates a fixed-amount link: 201 with its page url under PUBLIC_URL, active, no uses', async () => {
    const metadata = { productId: 'curso-foto', z: 'último' };
    const res = await api('POST', '/api/payment-links', linkInput({ metadata, maxUses: 3 }));
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      active: true,
      uses: 0,
      title: 'Curso de fotografia',
      amountCents: 19900,
      minCents: null,
      maxCents: null,
      methods: ['PIX'],
      maxUses: 3,
      metadata,
    });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.slug).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(res.body.url).toBe(`${server.runtime.platform.config.publicUrl}/pay/${res.body.slug}`);
  });

  it('creates an open-amount link with the range given, or the default range', async () => {
    const ranged = await createLink(server, merchant, {
      amountCents: undefined,
      minCents: 500,
      maxCents: 5000,
    });
    expect(ranged).toMatchObject({ amountCents: null, minCents: 500, maxCents: 5000 });
    const open = await createLink(server, merchant, { amountCents: undefined });
    expect(open.amountCents).toBeNull();
    expect(open.minCents).toBe(100);
    expect(open.maxCents).toBeGreaterThan(open.minCents!);
  });

  it('gives every link its own random slug', async () => {
    const slugs = new Set<string>();
    for (let i = 0; i < 5; i++) slugs.add((await createLink(server, merchant)).slug);
    expect(slugs.size).toBe(5);
  });

  it.each([
    ['no title', { title: undefined }, 'title'],
    ['a blank title', { title: '   ' }, 'title'],
    ['an amount of 0', { amountCents: 0 }, 'amountCents'],
    ['a fractional amount', { amountCents: 10.5 }, 'amountCents'],
    ['a fixed amount with a range', { minCents: 100, maxCents: 200 }, 'minCents'],
    ['min above max', { amountCents: undefined, minCents: 900, maxCents: 100 }, 'minCents'],
    ['no methods', { methods: [] }, 'methods'],
    ['an unknown method', { methods: ['PIX', 'CASH'] }, 'methods'],
    ['a method twice', { methods: ['PIX', 'PIX'] }, 'methods'],
    ['installments without CREDIT_CARD', { maxInstallments: 3 }, 'maxInstallments'],
    [
      'a fixed amount beyond what a boleto carries, boleto offered',
      { amountCents: 10_000_000_000, methods: ['PIX', 'BOLETO'] },
      'amountCents',
    ],
    ['an expiry in the past', { expiresAt: '2020-01-01T00:00:00Z' }, 'expiresAt'],
    ['an expiry that is no date', { expiresAt: 'amanhã' }, 'expiresAt'],
    ['maxUses 0', { maxUses: 0 }, 'maxUses'],
    ['a successUrl that is not http', { successUrl: 'javascript:alert(1)' }, 'successUrl'],
    ['metadata with a number', { metadata: { orderId: 1 } }, 'metadata'],
    ['a field it does not know', { amount: 100 }, 'additional'],
  ])('refuses %s: 400 shape D naming the field, nothing written', async (_, overrides, field) => {
    const before = await countRows(server, 'payment_links');
    const res = await api('POST', '/api/payment-links', linkInput(overrides));
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ error: 'VALIDATION_ERROR', message: expect.stringContaining(field) });
    expect(await countRows(server, 'payment_links')).toBe(before);
  });

  it("refuses an amount the account's fee exceeds (fixed, or a range's least); a fee raised since is the shop's refusal to its payer", async () => {
    const shop = await createMerchant(server, 'Loja de Centavos');
    await updateAccount(server.runtime.platform.db, shop.accountId, {
      saleFeeFixed: 99,
      saleFeePercentE4: 0,
    });
    const before = await countRows(server, 'payment_links');
    for (const overrides of [
      { amountCents: 50 },
      { amountCents: undefined, minCents: 50, maxCents: 5000 },
      { amountCents: 98, methods: ['PIX', 'BOLETO'] },
    ]) {
      const res = await api('POST', '/api/payment-links', linkInput(overrides), shop);
      expect(res.status, res.text).toBe(400);
      expect(res.body.message).toMatch(/does not cover this account's sale fee of 99 cents/);
    }
    // an open amount's least is named as the caller gave it, or as the default it did not give
    const open = await api(
      'POST',
      '/api/payment-links',
      linkInput({ amountCents: undefined, minCents: 50 }),
      shop,
    );
    expect(open.body.message).toBe(
      "minCents 50 does not cover this account's sale fee of 99 cents: a payer could pay less than the fee; give minCents above it",
    );
    await updateAccount(server.runtime.platform.db, shop.accountId, { saleFeeFixed: 101 });
    const unsent = await api('POST', '/api/payment-links', linkInput({ amountCents: undefined }), shop);
    expect(unsent.status, unsent.text).toBe(400);
    expect(unsent.body.message).toMatch(
      /^minCents 100 \(the default\) does not cover this account's sale fee of 101 cents/,
    );
    await updateAccount(server.runtime.platform.db, shop.accountId, { saleFeeFixed: 99 });
    expect(await countRows(server, 'payment_links')).toBe(before);
    const session = await call<{ message: string }>('POST', `${server.url}/api/checkout/sessions`, {
      headers: shop.keys,
      body: sessionInput({
        amountCents: 60,
        items: [{ title: 'Bala', unitPrice: 60, quantity: 1, tangible: false }],
      }),
    });
    expect(session.status, session.text).toBe(400);
    expect(session.body.message).toMatch(/does not cover this account's sale fee of 99 cents/);

    // made payable, then the shop's fee rises past it: its payer is told the shop refused, not to check their data
    const link = await api('POST', '/api/payment-links', linkInput({ amountCents: 200 }), shop);
    expect(link.status, link.text).toBe(201);
    await updateAccount(server.runtime.platform.db, shop.accountId, { saleFeeFixed: 300 });
    server.logs.expect(/a payer’s payment refused by the shop’s split or fees/);
    const payer = await call('POST', `${server.url}/api/public/pay/${link.body.slug}`, { body: PAYER });
    expect(payer.status, payer.text).toBe(403);
    expect(payer.body).toEqual({
      error: 'FORBIDDEN',
      message: 'This payment cannot be taken now: the shop must review its settings',
    });
  });

  it('refuses a read-only key (403) and no key (401)', async () => {
    const key = await call<{ publicKey: string; privateKey: string }>(
      'POST',
      `${server.url}/api/credentials`,
      {
        headers: merchant.panel,
        body: { scope: 'read' },
      },
    );
    expect(key.status, key.text).toBe(201);
    const keys = { 'x-api-public-key': key.body.publicKey, 'x-api-private-key': key.body.privateKey };
    const refused = await call('POST', `${server.url}/api/payment-links`, {
      headers: keys,
      body: linkInput(),
    });
    expect(refused.status).toBe(403);
    const list = await call('GET', `${server.url}/api/payment-links`, { headers: keys });
    expect(list.status).toBe(200);
    const anonymous = await call<{ error: string }>('POST', `${server.url}/api/payment-links`, {
      body: linkInput(),
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe('UNAUTHORIZED');
  });
});

describe('GET and PATCH /api/payment-links', () => {
  it('lists the account’s links newest first, page by page, and none of another account’s', async () => {
    const own = await createLink(server, merchant, { title: 'Mais novo' });
    const theirs = await createLink(server, other, { title: 'De outro' });
    const first = await call<{ data: LinkBody[]; nextCursor: string | null }>(
      'GET',
      `${server.url}/api/payment-links?limit=2`,
      { headers: merchant.keys },
    );
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.data[0]!.id).toBe(own.id);
    expect(first.body.nextCursor).not.toBeNull();
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: LinkBody[]; nextCursor: string | null } } = await call(
        'GET',
        `${server.url}/api/payment-links?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
        { headers: merchant.keys },
      );
      ids.push(...page.body.data.map((l) => l.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain(own.id);
    expect(ids).not.toContain(theirs.id);
    expect((await api('GET', '/api/payment-links?limit=0')).status).toBe(400);
  });

  it('reads one link; another account’s, an unknown one or a malformed id is 404', async () => {
    const link = await createLink(server, merchant);
    const res = await api('GET', `/api/payment-links/${link.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(link);
    for (const [path, who] of [
      [`/api/payment-links/${link.id}`, other],
      ['/api/payment-links/0b6f1c3e-5a8e-4c6a-9d1b-2f6f0d3a8e41', merchant],
      ['/api/payment-links/nope', merchant],
    ] as const) {
      const missing = await api('GET', path, undefined, who);
      expect(missing.status, path).toBe(404);
      expect(missing.body).toEqual({ error: 'NOT_FOUND', message: 'Payment link not found' });
    }
  });

  it('turns a link off and on again; another account cannot', async () => {
    const link = await createLink(server, merchant);
    const off = await api('PATCH', `/api/payment-links/${link.id}`, { active: false });
    expect(off.status, off.text).toBe(200);
    expect(off.body.active).toBe(false);
    expect((await api('PATCH', `/api/payment-links/${link.id}`, { active: true }, other)).status).toBe(404);
    expect((await api('GET', `/api/payment-links/${link.id}`)).body.active).toBe(false);
    const on = await api('PATCH', `/api/payment-links/${link.id}`, { active: true });
    expect(on.body.active).toBe(true);
    const bad = await api('PATCH', `/api/payment-links/${link.id}`, { active: 'no' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('VALIDATION_ERROR');
  });
});

describe('/api/panel/payment-links', () => {
  it('creates, lists, reads and turns off links with the panel session (CSRF required), errors in shape A', async () => {
    const created = await call<LinkBody>('POST', `${server.url}/api/panel/payment-links`, {
      headers: merchant.panel,
      body: linkInput({ title: 'Pelo painel' }),
    });
    expect(created.status, created.text).toBe(201);
    const list = await call<{ data: LinkBody[] }>('GET', `${server.url}/api/panel/payment-links`, {
      headers: { cookie: merchant.cookie },
    });
    expect(list.body.data[0]!.id).toBe(created.body.id);
    const one = await call<LinkBody>('GET', `${server.url}/api/panel/payment-links/${created.body.id}`, {
      headers: { cookie: merchant.cookie },
    });
    expect(one.body.title).toBe('Pelo painel');
    const noCsrf = await call('PATCH', `${server.url}/api/panel/payment-links/${created.body.id}`, {
      headers: { cookie: merchant.cookie },
      body: { active: false },
    });
    expect(noCsrf.status).toBe(403);
    const off = await call<LinkBody>('PATCH', `${server.url}/api/panel/payment-links/${created.body.id}`, {
      headers: merchant.panel,
      body: { active: false },
    });
    expect(off.body.active).toBe(false);
    const bad = await call('POST', `${server.url}/api/panel/payment-links`, {
      headers: merchant.panel,
      body: linkInput({ methods: [] }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    const theirs = await call('GET', `${server.url}/api/panel/payment-links/${created.body.id}`, {
      headers: { cookie: other.cookie },
    });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
  });
});
