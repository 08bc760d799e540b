/**
 * Subscriptions follow their account's standing, through the real doors: a pending_review account cannot save
 * cards, create plans or subscriptions (reads stay open); a suspended account's renewals wait (no try, no
 * dunning, the sandbox's advance refused) and, once it is active again, only the current period is charged; a
 * closed account's subscriptions are canceled (account_closed) and its open charges cancelled. The running
 * scheduler of the gateway's own workers does the charging.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody, cardEnding } from '../cards/cards.js';
import { CUSTOMER, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { Mailbox } from '../support/mailbox.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

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

const db = () => server.runtime.platform.db;
const today = () => new Date().toLocaleDateString('sv-SE', { timeZone: 'America/Sao_Paulo' });

const api = <T>(m: TestMerchant, method: string, path: string, body?: unknown) =>
  call<T & { error?: string; message?: string }>(method, `${server.url}${path}`, {
    headers: m.keys,
    ...(body === undefined ? {} : { body }),
  });
const ops = (o: TestOperator, path: string, body: unknown = {}) =>
  call<{ status: string }>('POST', `${server.url}${path}`, { headers: o.ops, body });

async function customerWithCard(m: TestMerchant) {
  const customer = await api<{ id: string }>(m, 'POST', '/api/customers', CUSTOMER);
  expect(customer.status, customer.text).toBe(201);
  const token = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': m.publicKey },
    body: cardBody(cardEnding('1')),
  });
  const card = await api<{ id: string }>(m, 'POST', `/api/customers/${customer.body.id}/cards`, {
    token: token.body.token,
  });
  return { customerId: customer.body.id, cardId: card.body.id, token: token.body.token };
}

async function plan(m: TestMerchant, methods = ['CREDIT_CARD', 'PIX']) {
  const made = await api<{ id: string }>(m, 'POST', '/api/plans', {
    name: 'Academia',
    amountCents: 9990,
    interval: 'month',
    methods,
  });
  expect(made.status, made.text).toBe(201);
  return made.body.id;
}

const subscriptionRow = async (uuid: string) =>
  (
    await db().query<{ status: string; cancel_reason: string | null; period_index: number }>(
      'SELECT status, cancel_reason, period_index FROM subscriptions WHERE uuid = $1',
      [uuid],
    )
  )[0]!;
const salesOf = async (uuid: string) =>
  db().query<{ status: string; items: { title: string }[] }>(
    `SELECT sa.status, sa.items FROM subscription_charges c
       JOIN subscriptions su ON su.id = c.subscription_id JOIN sales sa ON sa.id = c.sale_id
      WHERE su.uuid = $1 ORDER BY sa.id`,
    [uuid],
  );
const factsOf = async (uuid: string) =>
  (
    await db().query<{ event_type: string }>(
      `SELECT event_type FROM notification_events WHERE webhook_body::jsonb->>'id' = $1 ORDER BY created_at, id`,
      [uuid],
    )
  ).map((r) => r.event_type);

describe('subscriptions and the account’s standing', () => {
  it('pending_review: saving cards, plans and subscriptions answer 403 ACCOUNT_NOT_ACTIVE (shape D); reads stay open', async () => {
    const m = await createMerchant(server);
    const { customerId, cardId, token } = await customerWithCard(m);
    const planId = await plan(m);
    await db().query("UPDATE accounts SET status = 'pending_review' WHERE id = $1", [m.accountId]);
    await db().query(`SELECT pg_notify('gateway_auth', '0|acct:${m.accountId}')`);
    await waitUntil(async () => (await api(m, 'POST', '/api/plans', {})).status === 403);
    const refused = [
      await api(m, 'POST', '/api/plans', {
        name: 'X',
        amountCents: 100,
        interval: 'month',
        methods: ['PIX'],
      }),
      await api(m, 'POST', `/api/customers/${customerId}/cards`, { token }),
      await api(m, 'POST', '/api/subscriptions', {
        customerId,
        planId,
        paymentMethod: 'CREDIT_CARD',
        cardId,
      }),
    ];
    for (const res of refused) {
      expect(res.status, res.text).toBe(403);
      expect(res.body).toEqual({ message: expect.any(String), error: 'ACCOUNT_NOT_ACTIVE' });
    }
    expect((await api(m, 'GET', '/api/plans')).status).toBe(200);
    expect((await api(m, 'GET', '/api/subscriptions')).status).toBe(200);
    expect((await api(m, 'GET', `/api/customers/${customerId}`)).status).toBe(200);
    const [{ n }] = (await db().query<{ n: number }>(
      'SELECT count(*)::int AS n FROM subscriptions WHERE account_id = $1',
      [m.accountId],
    )) as [{ n: number }];
    expect(n).toBe(0);
  });

  it('suspended: the billing page takes no card (403 ACCOUNT_SUSPENDED, nothing saved or tried); active again, the card given is charged at once', async () => {
    const m = await createMerchant(server);
    const planId = await plan(m, ['CREDIT_CARD']);
    const customer = await api<{ id: string }>(m, 'POST', '/api/customers', CUSTOMER);
    // made without a card: it waits for the customer's, given on the billing page
    const made = await api<{ id: string; status: string; billingUrl: string }>(
      m,
      'POST',
      '/api/subscriptions',
      {
        customerId: customer.body.id,
        planId,
        paymentMethod: 'CREDIT_CARD',
      },
    );
    expect(made.status, made.text).toBe(201);
    const card = `${server.url}/api/public/billing/${new URL(made.body.billingUrl).pathname.split('/').pop()}/card`;
    expect((await ops(risk, `/api/ops/accounts/${m.accountId}/suspend`, { reason: 'análise' })).status).toBe(
      200,
    );
    const refused = await call('POST', card, { body: cardBody(cardEnding('1')) });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body).toEqual({ message: expect.any(String), error: 'ACCOUNT_SUSPENDED' });
    const [row] = await db().query<{ card_id: string | null; attempt: number; n: number }>(
      `SELECT card_id, attempt, (SELECT count(*)::int FROM subscription_charges c WHERE c.subscription_id = s.id) AS n
         FROM subscriptions s WHERE uuid = $1`,
      [made.body.id],
    );
    expect(row).toEqual({ card_id: null, attempt: 0, n: 0 });
    expect((await ops(risk, `/api/ops/accounts/${m.accountId}/reactivate`)).status).toBe(200);
    const paid = await call<{ status: string; sales: { status: string }[] }>('POST', card, {
      body: cardBody(cardEnding('1')),
    });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.status).toBe('active');
    expect(paid.body.sales.map((s) => s.status)).toEqual(['PAGO']);
  });

  it('suspended: a renewal falling due waits (no try, no dunning, advance refused); active again, the current period alone is charged', async () => {
    const m = await createMerchant(server);
    const { customerId, cardId } = await customerWithCard(m);
    const planId = await plan(m);
    const made = await api<{ id: string; status: string }>(m, 'POST', '/api/subscriptions', {
      customerId,
      planId,
      paymentMethod: 'CREDIT_CARD',
      cardId,
      startDate: today(),
    });
    expect(made.body.status).toBe('incomplete');
    // the running scheduler charges the first period, due today
    await waitUntil(async () => (await subscriptionRow(made.body.id)).status === 'active', 30_000);
    expect((await ops(risk, `/api/ops/accounts/${m.accountId}/suspend`, { reason: 'análise' })).status).toBe(
      200,
    );
    // three months pass while it is suspended: the renewals of three periods fall due
    await db().query(
      `UPDATE subscriptions SET anchor_date = anchor_date - interval '3 months',
              current_period_start = current_period_start - interval '3 months',
              current_period_end = current_period_end - interval '3 months', next_charge_at = now()
        WHERE uuid = $1`,
      [made.body.id],
    );
    const advanced = await api(m, 'POST', `/api/sandbox/subscriptions/${made.body.id}/advance`);
    expect(advanced.status).toBe(403);
    expect(advanced.body.error).toBe('ACCOUNT_SUSPENDED');
    // two scheduler rounds (every 5 s) pass: nothing tried
    await new Promise((r) => setTimeout(r, 11_000));
    expect((await salesOf(made.body.id)).length).toBe(1);
    expect(await subscriptionRow(made.body.id)).toMatchObject({ status: 'active', period_index: 1 });

    expect((await ops(risk, `/api/ops/accounts/${m.accountId}/reactivate`)).status).toBe(200);
    await waitUntil(async () => (await salesOf(made.body.id)).length === 2, 30_000);
    await waitUntil(async () => (await subscriptionRow(made.body.id)).period_index === 4, 30_000);
    const sales = await salesOf(made.body.id);
    expect(sales.map((s) => s.status)).toEqual(['PAGO', 'PAGO']);
    // the period charged is the one running today
    expect(sales[1]!.items[0]!.title).toContain(`(${today().split('-').reverse().join('/')} a `);
    const sub = await api<{ status: string; currentPeriodStart: string }>(
      m,
      'GET',
      `/api/subscriptions/${made.body.id}`,
    );
    expect(sub.body).toMatchObject({ status: 'active', currentPeriodStart: today() });
    expect(await factsOf(made.body.id)).not.toContain('subscription.past_due');
  }, 120_000);

  it('suspended between the scheduler’s claim and its charge: the try refused is let go, and made at once when the account is active again', async () => {
    const m = await createMerchant(server);
    const { customerId, cardId } = await customerWithCard(m);
    const planId = await plan(m);
    const made = await api<{ id: string }>(m, 'POST', '/api/subscriptions', {
      customerId,
      planId,
      paymentMethod: 'CREDIT_CARD',
      cardId,
      startDate: today(),
    });
    await waitUntil(async () => (await subscriptionRow(made.body.id)).status === 'active', 30_000);
    // the moment a suspension lands between the claim and the charge, held still: the account is suspended
    // (its charges refused at admission) while its subscriptions were read as not paused yet
    await db().query("UPDATE accounts SET status = 'suspended' WHERE id = $1", [m.accountId]);
    await db().query(`SELECT pg_notify('gateway_auth', '0|acct:${m.accountId}')`);
    await db().query(
      `UPDATE subscriptions SET anchor_date = anchor_date - interval '1 month',
              current_period_start = current_period_start - interval '1 month',
              current_period_end = current_period_end - interval '1 month', next_charge_at = now()
        WHERE uuid = $1`,
      [made.body.id],
    );
    const refusedTry = async () =>
      (
        await db().query<{ sale_id: string | null; released: boolean }>(
          `SELECT c.sale_id, c.claimed_at < now() - interval '1 day' AS released
             FROM subscription_charges c JOIN subscriptions s ON s.id = c.subscription_id
            WHERE s.uuid = $1 AND c.sale_id IS NULL`,
          [made.body.id],
        )
      )[0];
    // the running scheduler claims the renewal and its charge is refused: the claim is let go, not leased
    await waitUntil(async () => (await refusedTry())?.released === true, 30_000);
    expect((await salesOf(made.body.id)).length).toBe(1);
    // active again (a lease kept would have held the try 5 minutes): made within a scheduler round or two
    expect((await ops(risk, `/api/ops/accounts/${m.accountId}/reactivate`)).status).toBe(200);
    await waitUntil(
      async () => (await salesOf(made.body.id)).map((s) => s.status).join() === 'PAGO,PAGO',
      30_000,
    );
    const tries = await db().query<{ period_index: number; attempt: number }>(
      `SELECT c.period_index, c.attempt FROM subscription_charges c JOIN subscriptions s ON s.id = c.subscription_id
        WHERE s.uuid = $1 ORDER BY c.id`,
      [made.body.id],
    );
    // the refused try taken over, not a second attempt at the period
    expect(tries.map((t) => t.attempt)).toEqual([1, 1]);
  }, 120_000);

  it('closed: its subscriptions are canceled (account_closed), its open charges cancelled (a card authorization voided), its keys refused', async () => {
    const m = await createMerchant(server);
    const { customerId } = await customerWithCard(m);
    const planId = await plan(m);
    const made = await api<{ id: string }>(m, 'POST', '/api/subscriptions', {
      customerId,
      planId,
      paymentMethod: 'PIX',
      startDate: today(),
    });
    expect(made.status, made.text).toBe(201);
    await waitUntil(async () => (await salesOf(made.body.id))[0]?.status === 'PENDENTE', 30_000);
    // a card authorization not captured holds the cardholder's limit: the close voids it
    const token = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': m.publicKey },
      body: cardBody(cardEnding('1')),
    });
    const authorized = await api<{ uuid: string; status: string }>(
      m,
      'POST',
      '/api/transactions',
      saleInput({
        amount: 5000,
        paymentMethod: 'CREDIT_CARD',
        card: { token: token.body.token },
        capture: false,
      }),
    );
    expect(authorized.status, authorized.text).toBe(201);
    expect(authorized.body.status).toBe('EM_PROCESSAMENTO');
    const byRisk = await ops(risk, `/api/ops/accounts/${m.accountId}/close`, { reason: 'encerramento' });
    expect(byRisk.status).toBe(403); // closing is the admin's
    const noReason = await ops(admin, `/api/ops/accounts/${m.accountId}/close`);
    expect(noReason.status).toBe(400);
    const closed = await ops(admin, `/api/ops/accounts/${m.accountId}/close`, {
      reason: 'pedido do cliente',
    });
    expect(closed.status).toBe(200);
    expect(closed.body.status).toBe('closed');
    expect(await subscriptionRow(made.body.id)).toMatchObject({
      status: 'canceled',
      cancel_reason: 'account_closed',
    });
    expect((await salesOf(made.body.id)).map((s) => s.status)).toEqual(['CANCELADO']);
    const [card] = await db().query<{ status: string; state: string; acquirer_state: string }>(
      `SELECT s.status, c.state, a.state AS acquirer_state FROM sales s
         JOIN card_payments c ON c.sale_id = s.id
         JOIN sandbox_acquirer_payments a ON a.order_id = c.order_id
        WHERE s.uuid = $1`,
      [authorized.body.uuid],
    );
    expect(card).toEqual({ status: 'CANCELADO', state: 'voided', acquirer_state: 'voided' });
    expect((await factsOf(made.body.id)).at(-1)).toBe('subscription.canceled');
    expect((await api(m, 'GET', '/api/public/balance')).status).toBe(401);
    expect((await call('GET', `${server.url}/api/auth/me`, { headers: m.panel })).status).toBe(401);
    // its people log in no more: the right password is told the account is closed, and no session is made
    const sessions = async () =>
      (
        await db().query<{ n: number }>(
          'SELECT count(*)::int AS n FROM panel_sessions WHERE account_id = $1',
          [m.accountId],
        )
      )[0]!.n;
    const before = await sessions();
    const login = await call<{ success: boolean; error: { code: string; message: string } }>(
      'POST',
      `${server.url}/api/auth/login`,
      { body: { email: m.email, password: m.password } },
    );
    expect(login.status).toBe(401);
    expect(login.body).toMatchObject({
      success: false,
      error: { code: 'UNAUTHORIZED', message: 'This account is closed' },
    });
    expect(await sessions()).toBe(before);
    const wrong = await call<{ error: { message: string } }>('POST', `${server.url}/api/auth/login`, {
      body: { email: m.email, password: 'not-the-password' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.message).toBe('Invalid email or password'); // nothing said without the password
    await mailbox.waitFor(m.email, /Conta encerrada/);
    // once closed, it is closed
    expect((await ops(admin, `/api/ops/accounts/${m.accountId}/close`, { reason: 'de novo' })).status).toBe(
      409,
    );
  }, 90_000);
  it('closed: a charge admitted as the close committed is cancelled by the pass the close sends for later', async () => {
    const m = await createMerchant(server);
    // the charge's transaction read the account active and waits to write its sale while the close commits
    // (sales locked against writes, as a slow write would hold it: the close itself writes no sale)
    let charge!: Promise<Awaited<ReturnType<typeof api<{ uuid: string; status: string }>>>>;
    await db().tx(async (tx) => {
      await tx.query('LOCK TABLE sales IN SHARE MODE');
      charge = api<{ uuid: string; status: string }>(m, 'POST', '/api/transactions', saleInput());
      await waitUntil(async () => {
        const [w] = await db().query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
            WHERE c.relname = 'sales' AND NOT l.granted`,
        );
        return w!.n > 0;
      });
      const closed = await ops(admin, `/api/ops/accounts/${m.accountId}/close`, { reason: 'encerramento' });
      expect(closed.status).toBe(200);
    });
    const opened = await charge;
    expect(opened.status, opened.text).toBe(201);
    expect(opened.body.status).toBe('PENDENTE');
    // the close's own pass ran before this sale existed; its second pass is due two minutes after the close
    const [job] = await db().query<{ wait: number }>(
      `SELECT extract(epoch FROM start_after - now())::int AS wait FROM pgboss.job
        WHERE name = 'sales.cancel-account-charges' AND (data->>'accountId')::bigint = $1`,
      [m.accountId],
    );
    expect(job!.wait).toBeGreaterThan(60);
    const status = async () =>
      (
        await db().query<{ status: string }>('SELECT status FROM sales WHERE uuid = $1', [opened.body.uuid])
      )[0]!.status;
    expect(await status()).toBe('PENDENTE');
    // brought forward, the gateway's own worker runs it
    await db().query(
      `UPDATE pgboss.job SET start_after = now()
        WHERE name = 'sales.cancel-account-charges' AND (data->>'accountId')::bigint = $1`,
      [m.accountId],
    );
    await waitUntil(
      async () => (await status()) === 'CANCELADO',
      20_000,
      () => 'the straggler cancelled',
    );
  }, 60_000);
});
