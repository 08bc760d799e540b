/**
 * A PIX subscription whose customer authorised a Pix Automático mandate at the PSP, with PIX_PROCESSOR=bcb:
 * each period's cycle is scheduled there (PUT /cobr/{txid}, checked against the 2.9.0 yaml), its sale PENDENTE
 * until the PSP's `/cobr` callback, read back, says the payer's bank debited it (PAGO, the subscription renewed)
 * or refused it (FALHA, past_due, the retry a charge with due date); cancelling the subscription cancels a
 * cycle not yet due.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DevPsp } from '../../src/devpsp/server.js';
import { derivedUuid } from '../../src/platform/ids/derived-uuid.js';
import { CUSTOMER } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { pspProblems } from '../support/pix-openapi.js';
import { bcbExpiryRound, startBcbGateway } from '../support/psp.js';
import { queuedMailTexts } from '../support/queued-mail.js';
import type { TestServer } from '../support/server.js';

let psp: DevPsp;
let server: TestServer;
let merchant: TestMerchant;
const db = () => server.runtime.platform.db;

beforeAll(async () => {
  // the merchant of record is the first account of the fresh database
  ({ psp, server } = await startBcbGateway({
    PIX_AUTOMATICO_ACCOUNT: '1',
    PIX_AUTOMATICO_CONTA: '4433221',
    PIX_AUTOMATICO_AGENCIA: '0001',
  }));
  merchant = await createMerchant(server);
  if (merchant.accountId !== 1) throw new Error(`expected account 1, got ${merchant.accountId}`);
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
  idRec: string | null;
  currentPeriodStart: string;
}
interface SaleRow {
  id: number;
  txid: string;
  status: string;
  payment_method: string;
  id_rec: string | null;
}

const salesOf = (subscriptionId: string) =>
  db().query<SaleRow>(
    `SELECT id::int, external_transaction_id AS txid, status, payment_method, id_rec
       FROM sales WHERE subscription_id = $1 ORDER BY id`,
    [subscriptionId],
  );

const inDays = (n: number) =>
  new Date(Date.now() + n * 86_400_000).toLocaleDateString('sv-SE', { timeZone: 'America/Sao_Paulo' });

/**
 * A mandate approved by the payer of `document` (recorded through the PSP's /rec callback), and a PIX
 * subscription of that customer starting on `startDate` (in 3 days: a cycle is scheduled 2 to 10 days ahead),
 * matched to it.
 */
async function subscribed(document: string, startDate: string | null = inDays(3)) {
  const rec = psp.recurring.create({
    contrato: `CTR-${document}`,
    amountCents: 15_000,
    devedor: { cpf: document, nome: CUSTOMER.name },
  });
  await psp.recurring.approve(rec.idRec);
  const customer = await api<{ id: string }>('POST', '/api/customers', { ...CUSTOMER, document });
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
    ...(startDate ? { startDate } : {}),
  });
  expect(sub.status, sub.text).toBe(201);
  expect(sub.body.idRec).toBe(rec.idRec);
  return { sub: sub.body, idRec: rec.idRec };
}

/** As `subscribed`, with the first period's cycle scheduled (the scheduler's own code). */
async function scheduled(document: string, startDate?: string) {
  const { sub, idRec } = await subscribed(document, startDate);
  const advanced = await api('POST', `/api/sandbox/subscriptions/${sub.id}/advance`);
  expect(advanced.status, advanced.text).toBe(200);
  const [sale] = await salesOf(sub.id);
  return { sub, sale: sale!, idRec };
}

/** The txid of the n-th id the first try at a subscription's first period asks the PSP for. */
const txidOfTry = (sub: Sub, n: number) => derivedUuid(`subscription:${sub.id}:0:1:${n}`).replaceAll('-', '');

/** What a scheduler that died after its PUT /cobr, before storing the sale, left at the PSP. */
function leftByDeadScheduler(sub: Sub, idRec: string, txid: string) {
  const left = psp.recurring.schedule(txid, {
    idRec,
    calendario: { dataDeVencimento: sub.currentPeriodStart },
    valor: { original: '150.00' },
    ajusteDiaUtil: true,
    recebedor: { conta: '4433221', tipoConta: 'CORRENTE', agencia: '0001' },
  });
  if (typeof left === 'string') throw new Error(left);
  return left;
}

it('schedules the cycle at the PSP (cobr due on the period’s first day); debited, the sale is PAGO and the subscription renews', async () => {
  const { sub, sale, idRec } = await scheduled(CUSTOMER.document);
  expect(sale).toMatchObject({ status: 'PENDENTE', payment_method: 'PIX_AUTOMATICO', id_rec: idRec });
  const [started] = await queuedMailTexts(server, `subscription-started:${sub.id}`);
  expect(started).toContain(
    `com as cobranças pelo Pix Automático que você autorizou no seu banco. A primeira cobrança é feita em ${sub.currentPeriodStart.split('-').reverse().join('/')}.`,
  );
  expect(psp.state.log).toContain(`PUT /cobr/${sale.txid}`);
  const cobr = psp.recurring.cobrs.get(sale.txid)!;
  expect(cobr).toMatchObject({
    idRec,
    valor: '150.00',
    status: 'ATIVA',
    dataDeVencimento: sub.currentPeriodStart,
    recebedor: { conta: '4433221', tipoConta: 'CORRENTE', agencia: '0001' },
    devedor: { email: CUSTOMER.email },
  });

  await psp.recurring.settleScheduled(sale.txid, 'debit');
  const [paid] = await salesOf(sub.id);
  expect(paid!.status).toBe('PAGO');
  const next = await api<Sub>('POST', `/api/sandbox/subscriptions/${sub.id}/advance`);
  expect(next.body).toMatchObject({ status: 'active', idRec });
  const [rec] = await db().query<{ cycles: number }>('SELECT cycles FROM recurrences WHERE id_rec = $1', [
    idRec,
  ]);
  expect(rec!.cycles).toBe(1);
  // the next period's cycle was scheduled by that advance: a second cobr of the same mandate
  const sales = await salesOf(sub.id);
  expect(sales.map((s) => [s.payment_method, s.status])).toEqual([
    ['PIX_AUTOMATICO', 'PAGO'],
    ['PIX_AUTOMATICO', 'PENDENTE'],
  ]);
});

it('refused by the payer’s bank: the sale is FALHA, the first period stays incomplete, and its retry a charge with due date', async () => {
  const { sub, sale } = await scheduled('11144477735');
  await psp.recurring.settleScheduled(sale.txid, 'reject');
  expect((await salesOf(sub.id))[0]!.status).toBe('FALHA');
  const failed = await api<Sub>('GET', `/api/subscriptions/${sub.id}`);
  // the outcome is applied by the next round (here the next advance, which then makes the retry)
  expect(failed.body.status).toBe('incomplete');
  const retried = await api<Sub>('POST', `/api/sandbox/subscriptions/${sub.id}/advance`);
  // a first period refused stays incomplete through its retries (past_due is for renewals)
  expect(retried.body.status).toBe('incomplete');
  const sales = await salesOf(sub.id);
  expect(sales.map((s) => [s.payment_method, s.status])).toEqual([
    ['PIX_AUTOMATICO', 'FALHA'],
    ['PIX', 'PENDENTE'],
  ]);
  expect(psp.state.log).toContain(`PUT /cobv/${sales[1]!.txid}`);
});

/** The expiry job's round with the bcb adapter, after the test made these sales' charges expired. */
async function expire(saleIds: number[]): Promise<number> {
  await db().query(`UPDATE sales SET charge_expires_at = now() - interval '1 second' WHERE id = ANY($1)`, [
    saleIds,
  ]);
  return bcbExpiryRound(server);
}

it('past its retry window the cycle is read back: debited with its callback lost → PAGO; still active → cancelled there', async () => {
  const debited = await scheduled('98765432100');
  const active = await scheduled('39053344705', inDays(4));
  const hook = psp.recurring.webhookCobr;
  psp.recurring.webhookCobr = null; // the PSP's callback never arrives
  try {
    await psp.recurring.settleScheduled(debited.sale.txid, 'debit');
  } finally {
    psp.recurring.webhookCobr = hook;
  }
  expect((await salesOf(debited.sub.id))[0]!.status).toBe('PENDENTE');
  // the debited one is credited, not cancelled: only the active one is
  expect(await expire([debited.sale.id, active.sale.id])).toBe(1);
  expect((await salesOf(debited.sub.id))[0]!.status).toBe('PAGO');
  expect((await salesOf(active.sub.id))[0]!.status).toBe('CANCELADO');
  expect(psp.recurring.cobrs.get(active.sale.txid)!.status).toBe('CANCELADA');
});

it('cancelling the subscription now cancels its cycle not yet due at the PSP', async () => {
  const { sub, sale } = await scheduled('12345678909');
  expect(psp.recurring.cobrs.get(sale.txid)!.dataDeVencimento).toBe(inDays(3));
  const canceled = await api<Sub>('POST', `/api/subscriptions/${sub.id}/cancel`, {});
  expect(canceled.body.status).toBe('canceled');
  expect(psp.recurring.cobrs.get(sale.txid)!.status).toBe('CANCELADA');
  expect((await salesOf(sub.id))[0]!.status).toBe('CANCELADO');
});

it('a cycle left at the PSP by a scheduler that died before storing its sale is taken over, not scheduled twice', async () => {
  const { sub, idRec } = await subscribed('45317828791');
  const txid = txidOfTry(sub, 0);
  leftByDeadScheduler(sub, idRec, txid);
  const advanced = await api('POST', `/api/sandbox/subscriptions/${sub.id}/advance`);
  expect(advanced.status, advanced.text).toBe(200);
  const sales = await salesOf(sub.id);
  expect(sales).toMatchObject([{ txid, status: 'PENDENTE', payment_method: 'PIX_AUTOMATICO' }]);
  expect([...psp.recurring.cobrs.values()].filter((c) => c.idRec === idRec)).toHaveLength(1);
});

it('one left and then cancelled (its sale never stored) is passed over for the try’s next id', async () => {
  const { sub, idRec } = await subscribed('71428793860');
  const left = leftByDeadScheduler(sub, idRec, txidOfTry(sub, 0));
  left.status = 'CANCELADA';
  const advanced = await api('POST', `/api/sandbox/subscriptions/${sub.id}/advance`);
  expect(advanced.status, advanced.text).toBe(200);
  expect(await salesOf(sub.id)).toMatchObject([{ txid: txidOfTry(sub, 1), status: 'PENDENTE' }]);
});

it('a period due in less than 2 days cannot be scheduled in time: it is a charge with due date', async () => {
  const { sub, idRec } = await subscribed('86288366757', null);
  const advanced = await api('POST', `/api/sandbox/subscriptions/${sub.id}/advance`);
  expect(advanced.status, advanced.text).toBe(200);
  const [sale] = await salesOf(sub.id);
  expect(sale).toMatchObject({ payment_method: 'PIX', status: 'PENDENTE' });
  expect(psp.state.log).toContain(`PUT /cobv/${sale!.txid}`);
  expect([...psp.recurring.cobrs.values()].filter((c) => c.idRec === idRec)).toEqual([]);
  // the customer was told so when it was made: this first period is a Pix with due date, e-mailed
  const [started] = await queuedMailTexts(server, `subscription-started:${sub.id}`);
  const today = inDays(0).split('-').reverse().join('/');
  expect(started).toContain(`é um Pix com vencimento em ${today}, que enviamos por e-mail`);
  expect(started).not.toContain('A primeira cobrança é feita hoje');
});
