/**
 * A PIX subscription uses the Pix Automático mandate the customer authorised (decisions.md, "Subscriptions and
 * saved cards"): the one `idRec` names, checked, or else the newest of the customer's CPF/CNPJ that fits the
 * plan, found when the subscription is made or when a later period is charged. In the sandbox the payer's bank
 * debits each cycle at once: a PIX_AUTOMATICO sale PAGO carrying subscriptionId, idRec and contrato.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS } from '../boletos/fixtures.js';
import { CUSTOMER } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { queuedMailTexts } from '../support/queued-mail.js';
import { startServer, type TestServer } from '../support/server.js';

interface Sub {
  id: string;
  status: string;
  idRec: string | null;
  currentPeriodStart: string;
  nextChargeAt: string | null;
}
interface Sale {
  id: number;
  status: string;
  paymentMethod: string;
  amount: number;
  subscriptionId?: string;
  idRec?: string;
  contrato?: string;
}

let server: TestServer;

beforeAll(async () => {
  // no scheduler beside the test: each charge is made by the sandbox's advance (the scheduler's own code)
  server = await startServer({ workers: false });
  return () => server?.close();
});

/** The text of the "assinatura criada" e-mail of a subscription. */
const startedMail = async (subscriptionId: string) =>
  (await queuedMailTexts(server, `subscription-started:${subscriptionId}`)).join('\n');

/** A merchant of its own per test: mandates are matched by the payer's document within the account. */
async function merchantApi() {
  const merchant: TestMerchant = await createMerchant(server);
  const api = <T>(method: string, path: string, body?: unknown) =>
    call<T & { error?: string; message?: string }>(method, `${server.url}${path}`, {
      headers: merchant.keys,
      ...(body === undefined ? {} : { body }),
    });
  const mandate = async (amount: number, customer = CUSTOMER, journey = 2) => {
    const made = await api<{ idRec: string }>('POST', '/api/sandbox/recurrences', {
      contrato: `CTR-${amount}`,
      journey,
      amount,
      dataInicial: '2026-12-01',
      customer,
    });
    expect(made.status, made.text).toBe(201);
    return made.body.idRec;
  };
  const customer = async (document = CUSTOMER.document) =>
    (await api<{ id: string }>('POST', '/api/customers', { ...CUSTOMER, document })).body.id;
  const plan = async (amountCents: number, methods = ['PIX']) =>
    (
      await api<{ id: string }>('POST', '/api/plans', {
        name: 'Clube',
        amountCents,
        interval: 'month',
        methods,
      })
    ).body.id;
  const subscribe = (body: Record<string, unknown>) =>
    api<Sub>('POST', '/api/subscriptions', { paymentMethod: 'PIX', ...body });
  const advance = (id: string) => api<Sub>('POST', `/api/sandbox/subscriptions/${id}/advance`);
  const salesOf = async (id: string) =>
    (await api<{ data: Sale[] }>('GET', '/api/transactions?limit=100')).body.data
      .filter((s) => s.subscriptionId === id)
      .reverse();
  return { merchant, api, mandate, customer, plan, subscribe, advance, salesOf };
}

describe('a PIX subscription with the customer’s mandate', () => {
  it('is debited through it each period: PIX_AUTOMATICO sales PAGO with subscriptionId, idRec and contrato', async () => {
    const m = await merchantApi();
    const idRec = await m.mandate(2990);
    const customerId = await m.customer();
    const planId = await m.plan(2990);
    const asked = Date.now();
    const made = await m.subscribe({ customerId, planId });
    expect(made.status, made.text).toBe(201);
    expect(made.body.idRec).toBe(idRec);
    // scheduled like any cycle of Pix Automático, five days ahead of its period's first day (2 to 10 allowed):
    // the first period starts today, so now
    expect(Date.parse(made.body.nextChargeAt!)).toBeGreaterThanOrEqual(asked);
    expect(Date.parse(made.body.nextChargeAt!)).toBeLessThanOrEqual(Date.now());

    expect((await m.advance(made.body.id)).body).toMatchObject({ status: 'active', idRec });
    expect((await m.advance(made.body.id)).body.status).toBe('active');
    const sales = await m.salesOf(made.body.id);
    expect(sales).toHaveLength(2);
    for (const sale of sales) {
      expect(sale).toMatchObject({
        status: 'PAGO',
        paymentMethod: 'PIX_AUTOMATICO',
        amount: 2990,
        subscriptionId: made.body.id,
        idRec,
        contrato: 'CTR-2990',
      });
    }
    const [rec] = await server.runtime.platform.db.query<{ cycles: number }>(
      'SELECT cycles FROM recurrences WHERE id_rec = $1',
      [idRec],
    );
    expect(rec!.cycles).toBe(2);
    const [charges] = await server.runtime.platform.db.query<{ paid: number }>(
      `SELECT count(*)::int AS paid FROM subscription_charges c JOIN subscriptions s ON s.id = c.subscription_id
        WHERE s.uuid = $1 AND c.outcome = 'paid'`,
      [made.body.id],
    );
    expect(charges!.paid).toBe(2);
    // debited with no e-mail of its own: the customer is e-mailed their page once, when it is made
    const mails = await server.runtime.platform.db.query<{ subject: string }>(
      'SELECT subject FROM mail_messages WHERE cause LIKE $1',
      [`subscription-%:${made.body.id}:%`],
    );
    expect(mails.map((r) => r.subject)).toEqual([expect.stringMatching(/: assinatura criada$/)]);
    expect(await startedMail(made.body.id)).toContain('com as cobranças pelo Pix Automático');
  });

  it('idRec is checked: unknown, another payer’s, another amount, not PIX, in use → 400 with nothing written', async () => {
    const m = await merchantApi();
    const idRec = await m.mandate(4990);
    const planId = await m.plan(4990, ['PIX', 'BOLETO']);
    const customerId = await m.customer();
    const otherPayer = await m.customer('11144477735');
    const cheaper = await m.plan(3990);
    const cases: [Record<string, unknown>, string][] = [
      [{ customerId, planId, idRec: 'RR9999999920261201abcdefghijk' }, 'not a Pix Automático mandate'],
      [{ customerId: otherPayer, planId, idRec }, 'another payer'],
      [{ customerId, planId: cheaper, idRec }, 'authorises 4990 cents a cycle; the plan charges 3990'],
      [
        {
          customerId,
          planId,
          idRec,
          paymentMethod: 'BOLETO',
          address: ADDRESS,
        },
        'PIX subscriptions only',
      ],
    ];
    for (const [body, message] of cases) {
      const res = await m.subscribe(body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.message).toContain(message);
    }
    expect((await m.api<{ data: unknown[] }>('GET', '/api/subscriptions')).body.data).toEqual([]);

    const first = await m.subscribe({ customerId, planId, idRec });
    expect(first.status, first.text).toBe(201);
    const again = await m.subscribe({ customerId, planId, idRec });
    expect(again.status).toBe(400);
    expect(again.body.message).toContain('already pays for another subscription');
    // without idRec the mandate in use is not matched: the second subscription has charges with due date
    const plain = await m.subscribe({ customerId, planId });
    expect(plain.body.idRec).toBeNull();
    // a cancelled subscription frees its mandate
    await m.api('POST', `/api/subscriptions/${first.body.id}/cancel`, {});
    const freed = await m.subscribe({ customerId, planId, idRec });
    expect(freed.status, freed.text).toBe(201);
  });

  it('a mandate of another amount is not matched: the period is a charge with due date', async () => {
    const m = await merchantApi();
    await m.mandate(1000);
    const made = await m.subscribe({ customerId: await m.customer(), planId: await m.plan(1500) });
    expect(made.body.idRec).toBeNull();
    await m.advance(made.body.id);
    expect(await m.salesOf(made.body.id)).toMatchObject([
      { paymentMethod: 'PIX', status: 'PENDENTE', amount: 1500 },
    ]);
  });

  it('a mandate authorised after subscribing is used from the next charge on', async () => {
    const m = await merchantApi();
    const made = await m.subscribe({ customerId: await m.customer(), planId: await m.plan(2500) });
    expect(made.body.idRec).toBeNull();
    const idRec = await m.mandate(2500);
    const advanced = await m.advance(made.body.id);
    expect(advanced.body).toMatchObject({ status: 'active', idRec });
    expect(await m.salesOf(made.body.id)).toMatchObject([
      { paymentMethod: 'PIX_AUTOMATICO', status: 'PAGO', idRec },
    ]);
  });

  it('a journey 3 mandate’s first payment, made when it was authorised, pays the first period: no second debit', async () => {
    const m = await merchantApi();
    const idRec = await m.mandate(3300, CUSTOMER, 3);
    const made = await m.subscribe({ customerId: await m.customer(), planId: await m.plan(3300) });
    expect(made.body.idRec).toBe(idRec);
    expect((await m.advance(made.body.id)).body.status).toBe('active');
    const sales = await m.salesOf(made.body.id);
    expect(sales).toHaveLength(1);
    expect(sales[0]).toMatchObject({ status: 'PAGO', paymentMethod: 'PIX_AUTOMATICO', idRec });
    const ofMandate = (await m.api<{ data: Sale[] }>('GET', '/api/transactions?limit=100')).body.data.filter(
      (s) => s.idRec === idRec,
    );
    expect(ofMandate).toHaveLength(1); // the authorisation's own payment, now the subscription's
    // the customer is told so: the first period is not announced as a debit to come
    const mail = await startedMail(made.body.id);
    expect(mail).toContain('O primeiro período já está pago');
    expect(mail).not.toContain('A primeira cobrança é feita');
    // the next period is the mandate's next cycle
    await m.advance(made.body.id);
    expect(await m.salesOf(made.body.id)).toHaveLength(2);
  });

  it('a plan change to another amount moves to the customer’s mandate of that amount, freeing the first', async () => {
    const m = await merchantApi();
    const small = await m.mandate(2000);
    const large = await m.mandate(4000);
    const customerId = await m.customer();
    const made = await m.subscribe({ customerId, planId: await m.plan(2000), idRec: small });
    expect(made.status, made.text).toBe(201);
    await m.advance(made.body.id);
    const patched = await m.api('PATCH', `/api/subscriptions/${made.body.id}`, {
      planId: await m.plan(4000),
    });
    expect(patched.status, patched.text).toBe(200);
    expect((await m.advance(made.body.id)).body.idRec).toBe(large);
    expect((await m.salesOf(made.body.id)).map((s) => [s.idRec, s.amount])).toEqual([
      [small, 2000],
      [large, 4000],
    ]);
    const again = await m.subscribe({ customerId, planId: await m.plan(2000), idRec: small });
    expect(again.status, again.text).toBe(201);
  });

  it('advance called at once from many requests charges each period once; a call that finds a try under way is 409', async () => {
    const m = await merchantApi();
    await m.mandate(1200);
    const made = await m.subscribe({ customerId: await m.customer(), planId: await m.plan(1200) });
    const answers = await Promise.all(Array.from({ length: 5 }, () => m.advance(made.body.id)));
    const codes = answers.map((a) => a.status);
    expect(
      codes.every((c) => c === 200 || c === 409),
      codes.join(),
    ).toBe(true);
    const sales = await m.salesOf(made.body.id);
    expect(sales).toHaveLength(codes.filter((c) => c === 200).length);
    const periods = sales.map((s) => (s as unknown as { items: { title: string }[] }).items[0]!.title);
    expect(new Set(periods).size).toBe(periods.length);
  });
});
