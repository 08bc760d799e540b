/**
 * A renewal is decided by the risk rules exactly as an API charge of the same card: a BIN a risk operator
 * blocks refuses the API charge and, charged by a `gateway worker` process (the scheduler's own door), the
 * period's sale too (RECUSADO, RISK_BLOCKED), and dunning follows as for a refused card. The worker builds its
 * card sales from the same factory as the API process.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cardBody, cardEnding } from '../cards/cards.js';
import { CUSTOMER, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { type ChildServer, spawnGateway, startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';

let server: TestServer;
let merchant: TestMerchant;
let risk: TestOperator;
let worker: ChildServer | null = null;

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
  risk = await createOperator(server, 'risk');
});
afterAll(async () => {
  await worker?.stop();
  await server?.close();
});

const api = <T>(method: string, path: string, body?: unknown) =>
  call<T & { error?: string }>(method, `${server.url}${path}`, {
    headers: merchant.keys,
    ...(body === undefined ? {} : { body }),
  });
const token = async (number: string) =>
  (
    await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
      headers: { 'x-api-public-key': merchant.publicKey },
      body: cardBody(number),
    })
  ).body.token;

it('a BIN blocked by a rule refuses the API charge and the renewal a worker process makes alike', async () => {
  const card = cardEnding('1', '522222'); // approved by the sandbox acquirer: only a rule refuses it
  const customer = await api<{ id: string }>('POST', '/api/customers', CUSTOMER);
  const saved = await api<{ id: string }>('POST', `/api/customers/${customer.body.id}/cards`, {
    token: await token(card),
  });
  const plan = await api<{ id: string }>('POST', '/api/plans', {
    name: 'Clube',
    amountCents: 4990,
    interval: 'month',
    methods: ['CREDIT_CARD'],
  });
  const tomorrow = new Date(Date.now() + 86_400_000).toLocaleDateString('sv-SE', {
    timeZone: 'America/Sao_Paulo',
  });
  const sub = await api<{ id: string }>('POST', '/api/subscriptions', {
    customerId: customer.body.id,
    planId: plan.body.id,
    paymentMethod: 'CREDIT_CARD',
    cardId: saved.body.id,
    startDate: tomorrow,
  });
  const first = await api<{ status: string }>('POST', `/api/sandbox/subscriptions/${sub.body.id}/advance`);
  expect(first.body.status).toBe('active');

  const rule = await call<{ id: number }>('POST', `${server.url}/api/ops/risk-rules`, {
    headers: risk.ops,
    body: { name: 'BIN bloqueado', when: { binIn: ['522222'] }, action: 'block' },
  });
  expect(rule.status, rule.text).toBe(201);
  const charged = await api<{ status: string; refusalReason: { code: string } | null }>(
    'POST',
    '/api/transactions',
    saleInput({ paymentMethod: 'CREDIT_CARD', card: { cardId: saved.body.id }, amount: 4990 }),
  );
  expect(charged.body).toMatchObject({ status: 'RECUSADO', refusalReason: { code: 'RISK_BLOCKED' } });

  // the next period falls due now; a worker process of its own charges it
  await server.runtime.platform.db.query('UPDATE subscriptions SET next_charge_at = now() WHERE uuid = $1', [
    sub.body.id,
  ]);
  worker = await spawnGateway(['worker'], { ...server.env, DATABASE_URL: server.databaseUrl });
  const renewal = await waitUntil(async () => {
    const rows = await server.runtime.platform.db.query<{ status: string; public_json: string }>(
      `SELECT sa.status, sa.public_json FROM subscription_charges c
         JOIN subscriptions su ON su.id = c.subscription_id JOIN sales sa ON sa.id = c.sale_id
        WHERE su.uuid = $1 AND c.period_index = 1`,
      [sub.body.id],
    );
    return rows[0]?.status === 'RECUSADO' && rows[0];
  }, 30_000);
  expect(JSON.parse(renewal.public_json)).toMatchObject({
    refusalReason: { code: 'RISK_BLOCKED' },
    risk: { decision: 'block', rule: rule.body.id },
  });
  const after = await waitUntil(async () => {
    const s = await api<{ status: string }>('GET', `/api/subscriptions/${sub.body.id}`);
    return s.body.status === 'past_due' && s.body;
  }, 30_000);
  expect(after.status).toBe('past_due');
}, 120_000);

it('a PIX or boleto period is decided by the rules as an API charge of the same customer: blocked, refused, dunning', async () => {
  const blocked = {
    ...CUSTOMER,
    name: 'Mau Pagador',
    email: 'mau@bloqueado.example',
    document: '39053344705',
  };
  const rule = await call<{ id: number }>('POST', `${server.url}/api/ops/risk-rules`, {
    headers: risk.ops,
    body: { name: 'Documento bloqueado', when: { documentIn: ['39053344705'] }, action: 'block' },
  });
  expect(rule.status, rule.text).toBe(201);
  // the API charge of that customer is refused
  const charged = await api<{ status: string; refusalReason: { code: string } | null }>(
    'POST',
    '/api/transactions',
    saleInput({ paymentMethod: 'PIX', customer: blocked, amount: 4990 }),
  );
  expect(charged.body).toMatchObject({ status: 'RECUSADO', refusalReason: { code: 'RISK_BLOCKED' } });

  const customer = await api<{ id: string }>('POST', '/api/customers', blocked);
  expect(customer.status, customer.text).toBe(201);
  const plan = await api<{ id: string }>('POST', '/api/plans', {
    name: 'Clube Pix',
    amountCents: 4990,
    interval: 'month',
    methods: ['PIX'],
  });
  const tomorrow = new Date(Date.now() + 86_400_000).toLocaleDateString('sv-SE', {
    timeZone: 'America/Sao_Paulo',
  });
  const sub = await api<{ id: string }>('POST', '/api/subscriptions', {
    customerId: customer.body.id,
    planId: plan.body.id,
    paymentMethod: 'PIX',
    startDate: tomorrow,
  });
  expect(sub.status, sub.text).toBe(201);
  const tried = await api<{ status: string }>('POST', `/api/sandbox/subscriptions/${sub.body.id}/advance`);
  expect(tried.status, tried.text).toBe(200);
  // its first period refused: still incomplete, retried as dunning
  expect(tried.body.status).toBe('incomplete');
  const rows = await server.runtime.platform.db.query<{ status: string; public_json: string }>(
    `SELECT sa.status, sa.public_json FROM subscription_charges c
       JOIN subscriptions su ON su.id = c.subscription_id JOIN sales sa ON sa.id = c.sale_id
      WHERE su.uuid = $1`,
    [sub.body.id],
  );
  expect(rows.map((r) => r.status)).toEqual(['RECUSADO']);
  expect(JSON.parse(rows[0]!.public_json)).toMatchObject({
    refusalReason: { code: 'RISK_BLOCKED' },
    risk: { decision: 'block', rule: rule.body.id },
    subscriptionId: sub.body.id,
  });
});

it('a period its customer’s mandate would pay, blocked, is refused as that mandate’s cycle: PIX_AUTOMATICO with its idRec', async () => {
  const payer = {
    ...CUSTOMER,
    name: 'Outro Bloqueado',
    email: 'outro@bloqueado.example',
    document: '52998224725',
  };
  const rule = await call<{ id: number }>('POST', `${server.url}/api/ops/risk-rules`, {
    headers: risk.ops,
    body: { name: 'Mandato bloqueado', when: { documentIn: ['52998224725'] }, action: 'block' },
  });
  expect(rule.status, rule.text).toBe(201);
  const mandate = await api<{ idRec: string }>('POST', '/api/sandbox/recurrences', {
    contrato: 'CTR-BLOQ',
    journey: 2,
    amount: 3990,
    dataInicial: '2026-12-01',
    customer: payer,
  });
  expect(mandate.status, mandate.text).toBe(201);
  const customer = await api<{ id: string }>('POST', '/api/customers', payer);
  const plan = await api<{ id: string }>('POST', '/api/plans', {
    name: 'Clube Automático',
    amountCents: 3990,
    interval: 'month',
    methods: ['PIX'],
  });
  const sub = await api<{ id: string; idRec: string | null }>('POST', '/api/subscriptions', {
    customerId: customer.body.id,
    planId: plan.body.id,
    paymentMethod: 'PIX',
  });
  expect(sub.status, sub.text).toBe(201);
  expect(sub.body.idRec).toBe(mandate.body.idRec);
  const tried = await api<{ status: string }>('POST', `/api/sandbox/subscriptions/${sub.body.id}/advance`);
  expect(tried.body.status, tried.text).toBe('incomplete');
  const rows = await server.runtime.platform.db.query<{ public_json: string }>(
    `SELECT sa.public_json FROM subscription_charges c
       JOIN subscriptions su ON su.id = c.subscription_id JOIN sales sa ON sa.id = c.sale_id
      WHERE su.uuid = $1`,
    [sub.body.id],
  );
  expect(rows.map((r) => JSON.parse(r.public_json))).toEqual([
    expect.objectContaining({
      status: 'RECUSADO',
      paymentMethod: 'PIX_AUTOMATICO',
      idRec: mandate.body.idRec,
      contrato: 'CTR-BLOQ',
      refusalReason: expect.objectContaining({ code: 'RISK_BLOCKED' }),
      subscriptionId: sub.body.id,
    }),
  ]);
  // the bank was never asked: the mandate debited no cycle
  const [rec] = await server.runtime.platform.db.query<{ cycles: number }>(
    'SELECT cycles FROM recurrences WHERE id_rec = $1',
    [mandate.body.idRec],
  );
  expect(rec!.cycles).toBe(0);
});
