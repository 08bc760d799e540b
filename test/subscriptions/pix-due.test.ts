/**
 * A PIX subscription's charge with PIX_PROCESSOR=bcb is a charge with due date at the PSP (API Pix `cobv`), due
 * on the period's first day and addressed to the customer; paid by Pix it renews the subscription, and unpaid
 * it is removed at the PSP when it expires.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DevPsp } from '../../src/devpsp/server.js';
import { fromSaoPaulo } from '../../src/platform/time/sao-paulo.js';
import { CUSTOMER } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { pspProblems } from '../support/pix-openapi.js';
import { bcbExpiryRound, RECEIVER_KEY, startBcbGateway } from '../support/psp.js';
import type { TestServer } from '../support/server.js';

let psp: DevPsp;
let server: TestServer;
let merchant: TestMerchant;
const db = () => server.runtime.platform.db;

beforeAll(async () => {
  ({ psp, server } = await startBcbGateway());
  merchant = await createMerchant(server);
});
afterAll(async () => {
  const problems = pspProblems(psp);
  await server?.close();
  await psp?.close();
  expect(problems).toEqual([]);
});

const api = <T>(method: string, path: string, body?: unknown) =>
  call<T & { message?: string }>(method, `${server.url}${path}`, {
    headers: merchant.keys,
    ...(body === undefined ? {} : { body }),
  });

interface Sub {
  id: string;
  status: string;
  currentPeriodStart: string;
}

/** A PIX subscription starting today, its first period's charge made (the scheduler's own code). */
async function charged(email: string): Promise<{ sub: Sub; sale: { id: number; txid: string } }> {
  const customer = await api<{ id: string }>('POST', '/api/customers', { ...CUSTOMER, email });
  const plan = await api<{ id: string }>('POST', '/api/plans', {
    name: 'Escola',
    amountCents: 15_000,
    interval: 'month',
    methods: ['PIX'],
  });
  const sub = await api<Sub>('POST', '/api/subscriptions', {
    customerId: customer.body.id,
    planId: plan.body.id,
    paymentMethod: 'PIX',
  });
  expect(sub.status, sub.text).toBe(201);
  const advanced = await api('POST', `/api/sandbox/subscriptions/${sub.body.id}/advance`);
  expect(advanced.status, advanced.text).toBe(200);
  const [sale] = await db().query<{ id: number; txid: string }>(
    `SELECT id::int, external_transaction_id AS txid FROM sales WHERE subscription_id = $1`,
    [sub.body.id],
  );
  return { sub: sub.body, sale: sale! };
}

it('opens a cobv due on the period’s first day, addressed to the customer; paid by Pix, the subscription renews', async () => {
  const { sub, sale } = await charged('cobv-paid@example.com');
  expect(psp.state.log).toContain(`PUT /cobv/${sale.txid}`);
  const cobv = psp.cobv.cobvs.get(sale.txid)!;
  // a first period due the day it is charged stays payable the next day: the customer has the 23 hours
  expect(cobv.calendario).toEqual({ dataDeVencimento: sub.currentPeriodStart, validadeAposVencimento: 1 });
  expect(cobv.devedor).toEqual({
    cpf: CUSTOMER.document,
    nome: CUSTOMER.name,
    email: 'cobv-paid@example.com',
  });
  expect(cobv.chave).toBe(RECEIVER_KEY);
  const lookup = await api<{ status: string; pixKey: string }>('GET', `/api/transactions/${sale.id}`);
  expect(lookup.body.status).toBe('PENDENTE');
  expect(lookup.body.pixKey).toContain(cobv.location);

  await psp.cobv.pay(sale.txid, { at: fromSaoPaulo(`${sub.currentPeriodStart}T12:00:00`) });
  expect((await api<{ status: string }>('GET', `/api/transactions/${sale.id}`)).body.status).toBe('PAGO');
  const next = await api<Sub>('POST', `/api/sandbox/subscriptions/${sub.id}/advance`);
  expect(next.body.status).toBe('active');
  const [charge] = await db().query<{ outcome: string }>(
    'SELECT outcome FROM subscription_charges WHERE sale_id = $1',
    [sale.id],
  );
  expect(charge!.outcome).toBe('paid');
});

it('unpaid past its due date, the charge expires and its cobv is removed at the PSP', async () => {
  const { sale } = await charged('cobv-unpaid@example.com');
  await db().query(`UPDATE sales SET charge_expires_at = now() - interval '1 second' WHERE id = $1`, [
    sale.id,
  ]);
  expect(await bcbExpiryRound(server)).toBe(1);
  expect((await api<{ status: string }>('GET', `/api/transactions/${sale.id}`)).body.status).toBe(
    'CANCELADO',
  );
  expect(psp.cobv.cobvs.get(sale.txid)!.status).toBe('REMOVIDA_PELO_USUARIO_RECEBEDOR');
});
