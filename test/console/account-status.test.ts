import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS } from '../boletos/fixtures.js';
import { cardBody, cardEnding } from '../cards/cards.js';
import { countRows, createSession, PAYER } from '../checkout/fixtures.js';
import { saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { Mailbox } from '../support/mailbox.js';
import { createOperator, giveFeePlan, type TestOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let mailbox: Mailbox;
let risk: TestOperator;
let admin: TestOperator;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SMTP_URL: mailbox.url } });
  risk = await createOperator(server, 'risk');
  admin = await createOperator(server, 'admin');
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

const ops = (o: TestOperator, path: string, body: unknown = {}) =>
  call<Record<string, unknown>>('POST', `${server.url}${path}`, { headers: o.ops, body });

async function setStatus(m: TestMerchant, status: string) {
  // the console's own way there: pending_review is where a sign-up starts, so it is set directly here
  await server.runtime.platform.db.query('UPDATE accounts SET status = $2 WHERE id = $1', [
    m.accountId,
    status,
  ]);
  await server.runtime.platform.db.query(`SELECT pg_notify('gateway_auth', '0|acct:${m.accountId}')`);
  await new Promise((r) => setTimeout(r, 100));
}

/** The money-moving routes and what each answers when refused (shape D, C on the cashout, A on the panel). */
function moneyRoutes(m: TestMerchant) {
  return [
    {
      name: 'API charge',
      method: 'POST',
      path: '/api/transactions',
      headers: m.keys,
      body: saleInput(),
      shape: 'D',
    },
    {
      name: 'API cashout',
      method: 'POST',
      path: '/api/public/cashout',
      headers: m.keys,
      body: { amount: 10, pixKey: '52998224725' },
      shape: 'C',
    },
    {
      name: 'API payment link',
      method: 'POST',
      path: '/api/payment-links',
      headers: m.keys,
      body: { title: 'Curso', amountCents: 1000, methods: ['PIX'] },
      shape: 'D',
    },
    {
      name: 'API checkout session',
      method: 'POST',
      path: '/api/checkout/sessions',
      headers: m.keys,
      body: {
        amountCents: 1000,
        items: [{ title: 'Curso', unitPrice: 1000, quantity: 1 }],
        methods: ['PIX'],
      },
      shape: 'D',
    },
    {
      name: "API card token (the payer's browser, the public key alone)",
      method: 'POST',
      path: '/api/cards/tokens',
      headers: { 'x-api-public-key': m.publicKey },
      body: cardBody(cardEnding('1')),
      shape: 'D',
    },
    {
      name: 'panel charge',
      method: 'POST',
      path: '/api/sales',
      headers: m.panel,
      body: saleInput(),
      shape: 'A',
    },
    {
      name: "panel card token (Nova cobrança's card)",
      method: 'POST',
      path: '/api/panel/cards/tokens',
      headers: m.panel,
      body: cardBody(cardEnding('1')),
      shape: 'A',
    },
    {
      name: 'panel withdrawal',
      method: 'POST',
      path: '/api/withdrawals',
      headers: m.panel,
      body: { amount: 10, pixKey: '52998224725', pixKeyType: 'CPF', password: m.password },
      shape: 'A',
    },
    {
      name: 'API anticipation',
      method: 'POST',
      path: '/api/anticipations',
      headers: m.keys,
      body: { upTo: '2099-12-31' },
      shape: 'D',
    },
    {
      name: 'panel anticipation',
      method: 'POST',
      path: '/api/anticipations',
      headers: m.panel,
      body: { upTo: '2099-12-31' },
      shape: 'A',
    },
    {
      name: 'panel payment link',
      method: 'POST',
      path: '/api/panel/payment-links',
      headers: m.panel,
      body: { title: 'Curso', amountCents: 1000, methods: ['PIX'] },
      shape: 'A',
    },
  ];
}

function codeOf(shape: string, body: Record<string, unknown>): unknown {
  if (shape === 'A') return (body.error as { code: string } | undefined)?.code;
  if (shape === 'C') return body.errorType;
  return body.error;
}

async function counts(m: TestMerchant) {
  const [row] = await server.runtime.platform.db.query<{
    sales: number;
    withdrawals: number;
    tokens: number;
    anticipations: number;
  }>(
    `SELECT (SELECT count(*)::int FROM sales WHERE account_id = $1) AS sales,
            (SELECT count(*)::int FROM withdrawals WHERE account_id = $1) AS withdrawals,
            (SELECT count(*)::int FROM card_tokens WHERE account_id = $1) AS tokens,
            (SELECT count(*)::int FROM anticipations WHERE account_id = $1) AS anticipations`,
    [m.accountId],
  );
  return row!;
}

describe('account statuses', () => {
  for (const [status, code] of [
    ['pending_review', 'ACCOUNT_NOT_ACTIVE'],
    ['suspended', 'ACCOUNT_SUSPENDED'],
  ] as const) {
    it(`${status}: every charge and cashout route answers 403 ${code} in its shape, nothing written; reads work`, async () => {
      const m = await createMerchant(server);
      await fundMerchant(server.runtime.platform.db, m.accountId, 100_000);
      // a read key, whose scope covers none of these routes: the account's standing is answered first
      const read = await call<{ publicKey: string; privateKey: string }>(
        'POST',
        `${server.url}/api/credentials`,
        { headers: m.panel, body: { name: 'leitura', scope: 'read' } },
      );
      expect(read.status, read.text).toBe(201);
      const readKeys = {
        'x-api-public-key': read.body.publicKey,
        'x-api-private-key': read.body.privateKey,
      };
      await setStatus(m, status);
      const before = await counts(m);
      for (const route of moneyRoutes(m)) {
        const asKey = route.headers === m.keys ? [route.headers, readKeys] : [route.headers];
        for (const headers of asKey) {
          const res = await call<Record<string, unknown>>(route.method, `${server.url}${route.path}`, {
            headers,
            body: route.body,
          });
          expect(res.status, `${route.name}: ${res.text}`).toBe(403);
          expect(codeOf(route.shape, res.body), route.name).toBe(code);
        }
      }
      expect(await counts(m)).toEqual(before);
      expect((await call('GET', `${server.url}/api/public/balance`, { headers: m.keys })).status).toBe(200);
      expect((await call('GET', `${server.url}/api/transactions`, { headers: m.keys })).status).toBe(200);
      expect((await call('GET', `${server.url}/api/sales`, { headers: m.panel })).status).toBe(200);
      // the sandbox stays open to a pending account (it tries the integration before approval), not to a
      // suspended one: every sale is admitted by the account's standing first
      const sandbox = await call<{ error: { code: string } }>('POST', `${server.url}/api/sandbox/sales`, {
        headers: m.keys,
        body: saleInput(),
      });
      // and so are its Pix Automático mandates, whose first cycle is a sandbox sale too
      const mandate = await call<{ sale: { status: string } | null; error: { code: string } }>(
        'POST',
        `${server.url}/api/sandbox/recurrences`,
        {
          headers: m.keys,
          body: {
            journey: 3,
            contrato: 'C-1',
            amount: 1000,
            dataInicial: '2027-01-05',
            customer: saleInput().customer,
          },
        },
      );
      if (status === 'pending_review') {
        expect(sandbox.status).toBe(201);
        expect(mandate.status, mandate.text).toBe(201);
        expect(mandate.body.sale?.status).toBe('PAGO');
      } else {
        expect(mandate.status, mandate.text).toBe(403);
        expect(mandate.body.error.code).toBe('ACCOUNT_SUSPENDED');
        expect(sandbox.status).toBe(403);
        expect(sandbox.body.error.code).toBe('ACCOUNT_SUSPENDED');
        // in the admission's order: the standing before the key's scope and before the body
        for (const [headers, body] of [
          [readKeys, saleInput()],
          [m.keys, {}],
          [m.panel, {}],
        ] as const) {
          const early = await call<{ error: { code: string } }>('POST', `${server.url}/api/sandbox/sales`, {
            headers,
            body,
          });
          expect(early.status, early.text).toBe(403);
          expect(early.body.error.code).toBe('ACCOUNT_SUSPENDED');
        }
      }
    });
  }

  it('a checkout session of a shop that takes no payments offers nothing on any door; active again, it pays', async () => {
    const m = await createMerchant(server);
    const session = await createSession(server, m, { methods: ['PIX', 'BOLETO', 'CREDIT_CARD'] });
    const base = `${server.url}/api/public/checkout/${session.id}`;
    const tries = [
      ['GET', base, undefined],
      ['POST', base, PAYER],
      ['POST', `${base}/boleto`, { ...PAYER, address: ADDRESS }],
      ['GET', `${base}/installments`, undefined],
      ['POST', `${base}/card-token`, cardBody(cardEnding('1'))],
      ['POST', `${base}/card`, { ...PAYER, token: 'tok_none', installments: 1 }],
    ] as const;
    for (const status of ['pending_review', 'suspended', 'closed']) {
      await setStatus(m, status);
      const before = {
        sales: await countRows(server, 'sales'),
        tokens: await countRows(server, 'card_tokens'),
      };
      for (const [method, url, body] of tries) {
        const res = await call<Record<string, unknown>>(method, url, body ? { body } : {});
        expect(res.status, `${status} ${method} ${url}: ${res.text}`).toBe(410);
        expect(res.body, url).toEqual({
          message: 'This shop is not taking payments right now',
          error: 'GONE',
        });
      }
      // the payer's page says so, in Portuguese
      const page = await call('GET', `${server.url}/checkout/${session.id}`);
      expect(page.status).toBe(410);
      expect(page.text).toContain('Esta loja não está aceitando pagamentos agora');
      expect({
        sales: await countRows(server, 'sales'),
        tokens: await countRows(server, 'card_tokens'),
      }).toEqual(before);
    }
    await setStatus(m, 'active');
    expect((await call('GET', base)).status).toBe(200);
    const paid = await call('POST', base, { body: PAYER });
    expect(paid.status, paid.text).toBe(201);
  });

  it('closed: every key and session is refused', async () => {
    const m = await createMerchant(server);
    await setStatus(m, 'closed');
    const key = await call<{ message: string }>('GET', `${server.url}/api/public/balance`, {
      headers: m.keys,
    });
    expect(key.status).toBe(401);
    const panel = await call('GET', `${server.url}/api/sales`, { headers: m.panel });
    expect(panel.status).toBe(401);
  });

  it('suspend (risk) refuses charges from the next request on, e-mails the owner; reactivate undoes it', async () => {
    const m = await createMerchant(server);
    await fundMerchant(server.runtime.platform.db, m.accountId, 100_000);
    const charge = await call('POST', `${server.url}/api/transactions`, {
      headers: m.keys,
      body: saleInput(),
    });
    expect(charge.status).toBe(201);

    const noReason = await ops(risk, `/api/ops/accounts/${m.accountId}/suspend`, {});
    expect(noReason.status).toBe(400);
    const suspended = await ops(risk, `/api/ops/accounts/${m.accountId}/suspend`, {
      reason: 'chargebacks altos',
    });
    expect(suspended.status).toBe(200);
    expect(suspended.body).toMatchObject({ status: 'suspended', statusReason: 'chargebacks altos' });
    const refused = await call<{ error: string }>('POST', `${server.url}/api/transactions`, {
      headers: m.keys,
      body: saleInput(),
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('ACCOUNT_SUSPENDED');
    await mailbox.waitFor(m.email, /Conta suspensa/);
    // twice is a conflict, not a second change
    expect((await ops(risk, `/api/ops/accounts/${m.accountId}/suspend`, { reason: 'x' })).status).toBe(409);

    const back = await ops(risk, `/api/ops/accounts/${m.accountId}/reactivate`);
    expect(back.status).toBe(200);
    expect(back.body.status).toBe('active');
    const again = await call('POST', `${server.url}/api/transactions`, {
      headers: m.keys,
      body: saleInput(),
    });
    expect(again.status).toBe(201);
    await mailbox.waitFor(m.email, /Conta reativada/);
  });

  it('approve and reject are the admin’s: a risk operator is refused (and audited)', async () => {
    const m = await createMerchant(server);
    await setStatus(m, 'pending_review');
    const byRisk = await ops(risk, `/api/ops/accounts/${m.accountId}/approve`);
    expect(byRisk.status).toBe(403);
    // an account not waiting for review is answered by its status, whatever its fee plan
    const active = await createMerchant(server);
    const notPending = await ops(admin, `/api/ops/accounts/${active.accountId}/approve`);
    expect(notPending.status).toBe(409);
    expect((notPending.body.error as { code: string }).code).toBe('INVALID_STATUS');
    // approval needs prices someone chose: without a fee plan (nor FEE_PLAN_DEFAULT) → 409, nothing changed
    const noPlan = await ops(admin, `/api/ops/accounts/${m.accountId}/approve`);
    expect(noPlan.status).toBe(409);
    expect((noPlan.body.error as { code: string }).code).toBe('FEE_PLAN_REQUIRED');
    await giveFeePlan(server, admin, m.accountId);
    const approved = await ops(admin, `/api/ops/accounts/${m.accountId}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.status).toBe('active');
    await mailbox.waitFor(m.email, /Conta aprovada/);
    const audit = await call<{ data: { action: string; operatorEmail: string }[] }>(
      'GET',
      `${server.url}/api/ops/audit?accountId=${m.accountId}`,
      { headers: admin.ops },
    );
    expect(audit.body.data.map((e) => [e.action, e.operatorEmail])).toEqual([
      ['account.approve', admin.email],
      ['account.fee-plan', admin.email],
      ['denied', risk.email],
    ]);
  });
});
