/**
 * A scripted card-testing attack on a shop's payment link (the payer's card routes need no key): 500 stolen
 * numbers from one address, then from 50 addresses (X-Forwarded-For through TRUST_PROXY), then slowly, one
 * number per address with pauses. Each is stopped — by the per-address limit, then by the account's refusal
 * ratio (card payments paused, a risk review opened) — while an honest buyer from another address still pays.
 * Prints how many attempts reached the acquirer before each block.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pauseCardPayments } from '../../src/accounts/status.js';
import { openReview } from '../../src/reviews/index.js';
import { cardBody, cardEnding } from '../cards/cards.js';
import { createLink, PAYER } from '../checkout/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { createOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    workers: false,
    env: {
      RISK_CARD_ATTEMPTS_PER_IP: '10',
      RISK_CARD_ATTEMPTS_PER_CARD: '5',
      RISK_REFUSAL_RATIO: '0.5',
      TRUST_PROXY: '127.0.0.1,::1,::ffff:127.0.0.1',
    },
  });
});
afterAll(() => server?.close());

interface Shop {
  merchant: TestMerchant;
  base: string;
}

async function shop(name: string): Promise<Shop> {
  const merchant = await createMerchant(server, name);
  const link = await createLink(server, merchant, { amountCents: 1990, methods: ['CREDIT_CARD', 'PIX'] });
  return { merchant, base: `${server.url}/api/public/pay/${link.slug}` };
}

/** One attempt as a card tester makes it: tokenize on the page's route, then charge. What each step answered. */
async function attempt(s: Shop, number: string, ip: string) {
  const headers = { 'x-forwarded-for': ip };
  const token = await call<{ token?: string; error?: string }>('POST', `${s.base}/card-token`, {
    headers,
    body: cardBody(number),
  });
  if (token.status !== 201) return { reached: false, status: token.status, error: token.body.error };
  const paid = await call<{ status?: string; error?: string }>('POST', `${s.base}/card`, {
    headers,
    body: { ...PAYER, token: token.body.token, installments: 1 },
  });
  return { reached: true, status: paid.status, error: paid.body.error, sale: paid.body.status };
}

/** A stolen number the issuer refuses (the sandbox acquirer denies numbers ending in 2, 3, 5, 7 or 8). */
const stolen = (i: number) => cardEnding(['2', '3', '5', '7', '8'][i % 5]!);

async function attack(s: Shop, count: number, ipOf: (i: number) => string, pauseMs = 0) {
  let reached = 0;
  let stoppedAt: number | null = null;
  const refusals = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const r = await attempt(s, stolen(i), ipOf(i));
    if (r.reached) reached++;
    else {
      refusals.set(`${r.status} ${r.error}`, (refusals.get(`${r.status} ${r.error}`) ?? 0) + 1);
      stoppedAt ??= i;
    }
    if (pauseMs) await new Promise((res) => setTimeout(res, pauseMs));
  }
  return { reached, stoppedAt, refusals: Object.fromEntries(refusals) };
}

describe('a card-testing attack', () => {
  it('500 numbers from one address: the address is cut off after 10; an honest buyer elsewhere pays', async () => {
    const s = await shop('Loja Alvo Um');
    const result = await attack(s, 500, () => '203.0.113.66');
    console.log(`one address: ${result.reached} of 500 attempts reached the acquirer`, result.refusals);
    expect(result.reached).toBe(10);
    expect(result.refusals).toEqual({ '429 RATE_LIMITED': 490 });
    const honest = await attempt(s, cardEnding('0'), '198.51.100.7');
    expect(honest).toMatchObject({ reached: true, status: 201, sale: 'PAGO' });
  });

  it('500 numbers from 50 addresses: the refusals pause the shop’s cards after 20 attempts, a risk review opens', async () => {
    const s = await shop('Loja Alvo Dois');
    const result = await attack(s, 500, (i) => `198.18.${Math.floor(i / 10) % 50}.${1 + (i % 10)}`);
    console.log(`50 addresses: ${result.reached} of 500 attempts reached the acquirer`, result.refusals);
    expect(result.reached).toBe(20);
    expect(result.refusals).toEqual({ '403 CARD_PAYMENTS_PAUSED': 480 });
    const [review] = await server.runtime.platform.db.query<{ kind: string; reason: string }>(
      "SELECT kind, reason FROM reviews WHERE account_id = $1 AND status = 'open'",
      [s.merchant.accountId],
    );
    expect(review).toMatchObject({ kind: 'risk', reason: expect.stringContaining('20 de 20') });
    // the shop still takes Pix; a buyer of another shop still pays by card
    const pix = await call('POST', s.base, { headers: { 'x-forwarded-for': '198.51.100.8' }, body: PAYER });
    expect(pix.status).toBe(201);
    const other = await shop('Loja Vizinha');
    expect(await attempt(other, cardEnding('0'), '198.51.100.9')).toMatchObject({ sale: 'PAGO' });

    // a risk operator clears it: cards again
    const risk = await createOperator(server, 'risk');
    const queue = await call<{ data: { id: number; accountId: number }[] }>(
      'GET',
      `${server.url}/api/ops/reviews?kind=risk`,
      {
        headers: risk.ops,
      },
    );
    const id = queue.body.data.find((r) => r.accountId === s.merchant.accountId)!.id;
    expect(
      (await call('POST', `${server.url}/api/ops/reviews/${id}/approve`, { headers: risk.ops, body: {} }))
        .status,
    ).toBe(200);
    expect(await attempt(s, cardEnding('0'), '198.51.100.10')).toMatchObject({ sale: 'PAGO' });
  });

  it('slowly, one number per address: paused all the same', async () => {
    const s = await shop('Loja Alvo Três');
    const result = await attack(s, 40, (i) => `198.19.${i}.1`, 100);
    console.log(`slowly: ${result.reached} of 40 attempts reached the acquirer`, result.refusals);
    expect(result.reached).toBe(20);
    expect(result.refusals).toEqual({ '403 CARD_PAYMENTS_PAUSED': 20 });

    // the review rejected (the operator will talk to the merchant first): still paused, and the console says so
    const risk = await createOperator(server, 'risk');
    const support = await createOperator(server, 'support');
    const queue = await call<{ data: { id: number; accountId: number }[] }>(
      'GET',
      `${server.url}/api/ops/reviews?kind=risk`,
      { headers: risk.ops },
    );
    const id = queue.body.data.find((r) => r.accountId === s.merchant.accountId)!.id;
    const rejected = await call('POST', `${server.url}/api/ops/reviews/${id}/reject`, {
      headers: risk.ops,
      body: { reason: 'falar com o lojista' },
    });
    expect(rejected.status, rejected.text).toBe(200);
    expect(await attempt(s, cardEnding('0'), '198.51.100.20')).toMatchObject({ status: 403 });
    const account = `${server.url}/api/ops/accounts/${s.merchant.accountId}`;
    expect(
      (await call<{ account: { cardPaymentsPaused: boolean } }>('GET', account, { headers: risk.ops })).body
        .account.cardPaymentsPaused,
    ).toBe(true);
    // the next step, once the merchant was talked to: a risk operator resumes them (support may not), audited
    const bySupport = await call('POST', `${account}/card-payments-resume`, {
      headers: support.ops,
      body: {},
    });
    expect(bySupport.status).toBe(403);
    const resumed = await call<{ cardPaymentsPaused: boolean }>('POST', `${account}/card-payments-resume`, {
      headers: risk.ops,
      body: {},
    });
    expect(resumed.status, resumed.text).toBe(200);
    expect(resumed.body.cardPaymentsPaused).toBe(false);
    expect(await attempt(s, cardEnding('0'), '198.51.100.21')).toMatchObject({ sale: 'PAGO' });
    const again = await call('POST', `${account}/card-payments-resume`, { headers: risk.ops, body: {} });
    expect(again.status).toBe(409);
    // paused again, its review still open: resuming decides the review too (approved), leaving no stale entry
    await server.runtime.platform.db.tx(async (tx) => {
      await pauseCardPayments(tx, s.merchant.accountId);
      await openReview(tx, { kind: 'risk', accountId: s.merchant.accountId, reason: 'teste' });
    });
    const withReview = await call('POST', `${account}/card-payments-resume`, { headers: risk.ops, body: {} });
    expect(withReview.status, withReview.text).toBe(200);
    const [open] = await server.runtime.platform.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM reviews WHERE account_id = $1 AND status = 'open'",
      [s.merchant.accountId],
    );
    expect(open!.n).toBe(0);
    // a closed account's are not resumed: it takes no payment at all
    await server.runtime.platform.db.tx((tx) => pauseCardPayments(tx, s.merchant.accountId));
    const admin = await createOperator(server, 'admin');
    const close = await call('POST', `${account}/close`, {
      headers: admin.ops,
      body: { reason: 'encerrada' },
    });
    expect(close.status, close.text).toBe(200);
    const closed = await call('POST', `${account}/card-payments-resume`, { headers: risk.ops, body: {} });
    expect(closed.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, error: { code: 'INVALID_STATUS' } });
    const [audit] = await server.runtime.platform.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM operator_audit WHERE action = 'account.card-payments-resume' AND account_id = $1",
      [s.merchant.accountId],
    );
    expect(audit!.n).toBe(2); // the two that resumed; the refused ones are not changes
  });
});

describe('a page that takes no payments', () => {
  it("refuses a card (410) without spending the card's attempts: the shop is checked before the card is counted", async () => {
    const closedShop = await shop('Loja suspensa');
    const honest = await shop('Loja aberta');
    const risk = await createOperator(server, 'risk');
    const suspend = await call(
      'POST',
      `${server.url}/api/ops/accounts/${closedShop.merchant.accountId}/suspend`,
      {
        headers: risk.ops,
        body: { reason: 'análise' },
      },
    );
    expect(suspend.status, suspend.text).toBe(200);
    const card = cardEnding('1');
    const from = { 'x-forwarded-for': '203.0.113.77' };
    // more tries than the card's five an hour, on the suspended shop's page
    for (let i = 0; i < 7; i++) {
      const res = await call<{ error?: string }>('POST', `${closedShop.base}/card-token`, {
        headers: from,
        body: cardBody(card),
      });
      expect(res.status, res.text).toBe(410);
    }
    // the same card, from the same address, at a shop that takes payments: tokenized
    const token = await call('POST', `${honest.base}/card-token`, { headers: from, body: cardBody(card) });
    expect(token.status, token.text).toBe(201);
  });
});
