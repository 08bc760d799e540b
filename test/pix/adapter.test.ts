import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevPsp } from '../../src/devpsp/server.js';
import { getBalance } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { hasValidCrc } from '../../src/payment-standards/brcode.js';
import { PixApiClient } from '../../src/payment-standards/pix-api-client.js';
import { checkDevolucoes } from '../../src/pix/devolucoes.js';
import { openRefund, releaseForgottenRefunds } from '../../src/sales/refunds/refunds.js';
import { SaleSettler } from '../../src/sales/settlement/settler.js';
import { eventsOf, moveTo, type SaleBody, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { pspProblems } from '../support/pix-openapi.js';
import { RECEIVER_KEY, startBcbGateway } from '../support/psp.js';
import type { TestServer } from '../support/server.js';

let psp: DevPsp;
let server: TestServer;
let merchant: TestMerchant;

const db = () => server.runtime.platform.db;
const charge = (body = saleInput()) =>
  call<SaleBody>('POST', `${server.url}/api/transactions`, { headers: merchant.keys, body });
const statusOf = async (id: number) =>
  (await db().query<{ status: string }>('SELECT status FROM sales WHERE id = $1', [id]))[0]!.status;
const received = (e2eid: string) =>
  db().query<{ credited: boolean; reason: string | null; sale_id: number | null }>(
    'SELECT credited, reason, sale_id FROM bcb_received_pix WHERE e2eid = $1',
    [e2eid],
  );

beforeAll(async () => {
  ({ psp, server } = await startBcbGateway());
  merchant = await createMerchant(server);
});
afterAll(async () => {
  // every request the adapter sent and every answer it read, against the Central Bank's yaml
  const problems = pspProblems(psp);
  await server?.close();
  await psp?.close();
  expect(problems).toEqual([]);
});

describe('PIX_PROCESSOR=bcb against a local PSP over mutual TLS', () => {
  it('registers the webhook for the receiver key at start', () => {
    expect(psp.state.webhooks.get(RECEIVER_KEY)).toBe(`${server.env.PUBLIC_URL}/api/providers/bcb/webhook`);
  });

  it('charge → BR Code → paid at the PSP → webhook → read back → PAGO, ledger and sale.paid', async () => {
    const res = await charge(saleInput({ amount: 4321 }));
    expect(res.status, res.text).toBe(201);
    const sale = res.body;
    expect(sale.externalTransactionId).toMatch(/^[a-zA-Z0-9]{26,35}$/);
    const cob = psp.state.cobs.get(sale.externalTransactionId)!;
    expect(cob.valor).toBe('43.21');
    expect(cob.chave).toBe(RECEIVER_KEY);
    expect(sale.pixKey).toContain(cob.location);
    expect(hasValidCrc(sale.pixKey!)).toBe(true);

    const pix = await psp.pay(sale.externalTransactionId);
    expect(await statusOf(sale.id)).toBe('PAGO');
    expect(psp.state.log).toContain(`GET /pix/${pix.endToEndId}`);
    expect(await received(pix.endToEndId)).toEqual([{ credited: true, reason: null, sale_id: sale.id }]);
    expect((await getBalance(db(), merchant.accountId)).total).toBe(sale.netAmount);
    expect((await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.paid',
    ]);
  });

  it('a duplicated webhook credits once', async () => {
    const sale = (await charge()).body;
    const before = await getBalance(db(), merchant.accountId);
    await psp.pay(sale.externalTransactionId, { times: 2 });
    const after = await getBalance(db(), merchant.accountId);
    expect(after.total - before.total).toBe(sale.netAmount);
    expect((await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.paid',
    ]);
  });

  it('a paid amount that differs is recorded and credits nothing (the sale stays PENDENTE)', async () => {
    const sale = (await charge(saleInput({ amount: 10000 }))).body;
    const before = await getBalance(db(), merchant.accountId);
    const pix = await psp.pay(sale.externalTransactionId, { amountCents: 9999 });
    expect(await statusOf(sale.id)).toBe('PENDENTE');
    expect(await received(pix.endToEndId)).toEqual([
      { credited: false, reason: 'paid 99.99, the charge is 10000 cents', sale_id: sale.id },
    ]);
    expect(await getBalance(db(), merchant.accountId)).toEqual(before);
  });

  it('a webhook for an unknown txid, or for a Pix the PSP does not confirm, moves nothing', async () => {
    await psp.notifyUnknown(RECEIVER_KEY, 'unknowntxid000000000000000000001');
    const ours = (await charge()).body.externalTransactionId;
    const forged = await call<{ outcomes: string[] }>('POST', `${server.url}/api/providers/bcb/webhook/pix`, {
      body: {
        pix: [
          { endToEndId: 'E99999999202611221200aaaaaaaaaaa', txid: ours, valor: '1.00' },
          { endToEndId: 'E99999999202611221200aaaaaaaaaab', txid: 'x', valor: '1.00' },
        ],
      },
    });
    expect(forged.status).toBe(200);
    expect(forged.body.outcomes).toEqual(['not_confirmed', 'not_ours']);
    expect(psp.state.log).not.toContain('GET /pix/E99999999202611221200aaaaaaaaaab');
    const rows = await db().query('SELECT 1 FROM bcb_received_pix WHERE txid = $1', [
      'unknowntxid000000000000000000001',
    ]);
    expect(rows).toHaveLength(0);
  });

  it('a PSP answering 500 or not answering on PUT /cob → 502 PROCESSOR_ERROR and no sale', async () => {
    const count = async () => (await db().query<{ n: number }>('SELECT count(*)::int AS n FROM sales'))[0]!.n;
    const before = await count();
    psp.failNext('PUT /cob', { status: 500 });
    const failed = await charge();
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ error: 'PROCESSOR_ERROR' });
    expect(await count()).toBe(before);
  });

  it('renews an expired token and repeats the call; caches it otherwise', async () => {
    const issued = psp.state.tokensIssued;
    await charge();
    await charge();
    expect(psp.state.tokensIssued).toBe(issued);
    psp.expireTokens();
    const res = await charge();
    expect(res.status).toBe(201);
    expect(psp.state.tokensIssued).toBe(issued + 1);
  });

  it('refunds: PUT devolucao, ESTORNADO when the PSP reports DEVOLVIDO (sale.refunded, once)', async () => {
    const sale = (await charge()).body;
    const pix = await psp.pay(sale.externalTransactionId);
    const res = await call<SaleBody>('POST', `${server.url}/api/transactions/${sale.uuid}/refund`, {
      headers: merchant.keys,
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body.status).toBe('PAGO'); // the PSP is still processing it
    const dev = psp.state.pix.get(pix.endToEndId)!.devolucoes[0]!;
    expect(dev.valor).toBe('100.00');
    await psp.settleRefund(pix.endToEndId, dev.id, 'DEVOLVIDO');
    await psp.settleRefund(pix.endToEndId, dev.id, 'DEVOLVIDO');
    expect(await statusOf(sale.id)).toBe('ESTORNADO');
    expect((await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.paid',
      'sale.refunded',
    ]);
  });
});

describe('partial refunds through API Pix devolução', () => {
  it('each refund is its own devolução with its valor; the sale is ESTORNADO when the last is DEVOLVIDO', async () => {
    const sale = (await charge(saleInput({ amount: 10000 }))).body;
    const pix = await psp.pay(sale.externalTransactionId);
    const paid = await getBalance(db(), merchant.accountId);
    const refund = (amountCents?: number, key?: string) =>
      call<SaleBody>('POST', `${server.url}/api/transactions/${sale.uuid}/refund`, {
        headers: { ...merchant.keys, ...(key ? { 'idempotency-key': key } : {}) },
        ...(amountCents ? { body: { amountCents } } : {}),
      });
    expect((await refund(2500, 'r-1')).status).toBe(202);
    expect((await refund(2500, 'r-1')).headers['idempotent-replayed']).toBe('true'); // the same devolução
    const devs = () => psp.state.pix.get(pix.endToEndId)!.devolucoes;
    expect(devs().map((d) => d.valor)).toEqual(['25.00']);
    await psp.settleRefund(pix.endToEndId, devs()[0]!.id, 'DEVOLVIDO');
    const after = await call<SaleBody>('GET', `${server.url}/api/transactions/${sale.uuid}`, {
      headers: merchant.keys,
    });
    expect(after.body).toMatchObject({ status: 'PAGO', refundedAmount: 2500 });
    const first = Math.floor((sale.netAmount * 2500) / 10000);
    expect((await getBalance(db(), merchant.accountId)).available).toBe(paid.available - first);
    expect((await refund()).status).toBe(202); // all that is left
    expect(devs().map((d) => d.valor)).toEqual(['25.00', '75.00']);
    expect(new Set(devs().map((d) => d.id)).size).toBe(2);
    await psp.settleRefund(pix.endToEndId, devs()[1]!.id, 'DEVOLVIDO');
    expect(await statusOf(sale.id)).toBe('ESTORNADO');
    expect(await getBalance(db(), merchant.accountId)).toMatchObject({
      available: paid.available - sale.netAmount,
      blocked: paid.blocked,
    });
    expect((await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.paid',
      'sale.refunded',
      'sale.refunded',
    ]);
    expect((await verifyLedger(db())).ok).toBe(true);
  });
});

describe('refund attempts (devolução ids)', () => {
  const refund = (uuid: string) =>
    call<SaleBody>('POST', `${server.url}/api/transactions/${uuid}/refund`, { headers: merchant.keys });

  it('after a devolução NAO_REALIZADO the sale stays PAGO and a new refund uses a new id', async () => {
    const sale = (await charge()).body;
    const pix = await psp.pay(sale.externalTransactionId);
    const paid = await getBalance(db(), merchant.accountId);
    expect((await refund(sale.uuid)).status).toBe(202);
    // while the PSP works on it, the refunded money is held: it cannot be withdrawn meanwhile
    const held = await getBalance(db(), merchant.accountId);
    expect(held.available).toBe(paid.available - sale.netAmount);
    expect(held.blocked).toBe(paid.blocked + sale.netAmount);
    const devs = () => psp.state.pix.get(pix.endToEndId)!.devolucoes;
    const first = devs()[0]!.id;
    // never an id anybody could tell in advance (a devolução made at the PSP under it would be taken for ours)
    expect(first).toMatch(/^D[0-9A-Za-z]{34}$/);
    expect(first).not.toContain(sale.externalTransactionId);
    expect((await refund(sale.uuid)).status).toBe(202); // in progress: the same devolução, no second one
    expect(devs()).toHaveLength(1);
    expect(await getBalance(db(), merchant.accountId)).toEqual(held); // held once
    await psp.settleRefund(pix.endToEndId, first, 'NAO_REALIZADO');
    expect(await statusOf(sale.id)).toBe('PAGO');
    expect(await getBalance(db(), merchant.accountId)).toEqual(paid); // not made: given back

    const again = await refund(sale.uuid);
    expect(again.status, again.text).toBe(202);
    expect(devs()).toHaveLength(2);
    const second = devs()[1]!.id;
    expect(second).not.toBe(first);
    expect(second).toMatch(/^[a-zA-Z0-9]{1,35}$/);
    expect((await refund(sale.uuid)).status).toBe(202); // in progress again: same id
    expect(devs()).toHaveLength(2);
    // the PSP repeats its webhook for the Pix, listing the first attempt's NAO_REALIZADO again: that ended
    // before, and the money now held is the second attempt's (a release here let it be withdrawn)
    await psp.settleRefund(pix.endToEndId, first, 'NAO_REALIZADO');
    expect(await getBalance(db(), merchant.accountId)).toEqual(held);
    await psp.settleRefund(pix.endToEndId, second, 'DEVOLVIDO');
    expect(await statusOf(sale.id)).toBe('ESTORNADO');
    const refunded = await getBalance(db(), merchant.accountId);
    expect(refunded).toMatchObject({ available: paid.available - sale.netAmount, blocked: paid.blocked });
    expect((await refund(sale.uuid)).status).toBe(409);
    expect(devs()).toHaveLength(2);
  });

  it('a refund the PSP completes while a dispute is open ends the sale ESTORNADO (a won dispute cannot bring it back)', async () => {
    const sale = (await charge()).body;
    const pix = await psp.pay(sale.externalTransactionId);
    const paid = await getBalance(db(), merchant.accountId);
    expect((await refund(sale.uuid)).status).toBe(202);
    expect((await moveTo(server, merchant, sale.id, 'MED')).status).toBe(200);
    const devs = () => psp.state.pix.get(pix.endToEndId)!.devolucoes;
    await psp.settleRefund(pix.endToEndId, devs()[0]!.id, 'DEVOLVIDO');
    expect(await statusOf(sale.id)).toBe('ESTORNADO');
    expect((await getBalance(db(), merchant.accountId)).total).toBe(paid.total - sale.netAmount);
    expect((await moveTo(server, merchant, sale.id, 'PAGO')).status).toBe(409);
  });

  it('a PUT answered 5xx keeps the money held (the refund may have been made), and a repeat that fails does not free it', async () => {
    const sale = (await charge()).body;
    const pix = await psp.pay(sale.externalTransactionId);
    const paid = await getBalance(db(), merchant.accountId);
    psp.failNext('PUT /pix', { status: 500 });
    expect((await refund(sale.uuid)).status).toBe(502);
    const held = await getBalance(db(), merchant.accountId);
    expect(held.available).toBe(paid.available - sale.netAmount);
    // a repeated request sends the same devolução again, and the PSP's answer decides
    expect((await refund(sale.uuid)).status).toBe(202);
    expect(await getBalance(db(), merchant.accountId)).toEqual(held);
    // the refund is under way: a later repeat meeting an error (a proxy's 504, a 4xx for the id it already
    // has) leaves the money held for it
    for (const status of [504, 409]) {
      psp.failNext('PUT /pix', { status });
      expect((await refund(sale.uuid)).status).toBe(502);
      expect(await getBalance(db(), merchant.accountId)).toEqual(held);
    }
    const devs = psp.state.pix.get(pix.endToEndId)!.devolucoes;
    await psp.settleRefund(pix.endToEndId, devs[0]!.id, 'DEVOLVIDO');
    expect(await statusOf(sale.id)).toBe('ESTORNADO');
    expect(await getBalance(db(), merchant.accountId)).toMatchObject({
      available: paid.available - sale.netAmount,
      blocked: paid.blocked,
    });
  });

  it('a NAO_REALIZADO the gateway only learns from the PUT answer: one 502, then a new attempt', async () => {
    const sale = (await charge()).body;
    const pix = await psp.pay(sale.externalTransactionId);
    expect((await refund(sale.uuid)).status).toBe(202);
    const devs = () => psp.state.pix.get(pix.endToEndId)!.devolucoes;
    await psp.settleRefund(pix.endToEndId, devs()[0]!.id, 'NAO_REALIZADO', { notify: false }); // callback lost
    const failed = await refund(sale.uuid);
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ error: 'PROCESSOR_ERROR' });
    expect(await statusOf(sale.id)).toBe('PAGO');
    const [row] = await db().query<{ refund_pending_net: number }>(
      'SELECT refund_pending_net FROM sales WHERE id = $1',
      [sale.id],
    );
    expect(row!.refund_pending_net).toBe(0); // not made: the money is the merchant's again
    expect((await refund(sale.uuid)).status).toBe(202);
    expect(devs().map((d) => d.status)).toEqual(['NAO_REALIZADO', 'EM_PROCESSAMENTO']);
    const rows = await db().query<{ attempt: number; status: string }>(
      'SELECT attempt, status FROM bcb_devolucoes WHERE sale_id = $1 ORDER BY attempt',
      [sale.id],
    );
    expect(rows).toEqual([
      { attempt: 1, status: 'NAO_REALIZADO' },
      { attempt: 2, status: 'EM_PROCESSAMENTO' },
    ]);
  });
});

describe('in-progress refunds read back (no callback)', () => {
  const refund = (uuid: string) =>
    call<SaleBody>('POST', `${server.url}/api/transactions/${uuid}/refund`, { headers: merchant.keys });
  const check = async () => {
    const client = new PixApiClient(server.runtime.platform.config.bcb!);
    try {
      return await checkDevolucoes(db(), new SaleSettler(db(), server.runtime.platform.queue), client);
    } finally {
      await client.close();
    }
  };

  it('an attempt the PSP never got (404 ten minutes on) ends as not made, and its money is given back', async () => {
    const sale = (await charge()).body;
    await psp.pay(sale.externalTransactionId);
    const paid = await getBalance(db(), merchant.accountId);
    psp.failNext('PUT /pix', { status: 500 }); // refused before the PSP recorded anything
    expect((await refund(sale.uuid)).status).toBe(502);
    expect((await getBalance(db(), merchant.accountId)).available).toBe(paid.available - sale.netAmount);
    await check(); // 404, but it may still be on its way: kept
    expect((await getBalance(db(), merchant.accountId)).available).toBe(paid.available - sale.netAmount);
    // sent 11 minutes ago, and nothing but 404s since
    const aged = (column: string) =>
      db().query(`UPDATE bcb_devolucoes SET ${column} = now() - interval '11 minutes' WHERE sale_id = $1`, [
        sale.id,
      ]);
    await aged('sent_at');
    await aged('unknown_since');
    // a 5xx in between proves nothing: the run of 404s starts again
    const [{ n }] = (await db().query<{ n: number }>(
      "SELECT count(*)::int AS n FROM bcb_devolucoes WHERE requested AND status = 'EM_PROCESSAMENTO'",
    )) as [{ n: number }];
    psp.failNext('GET /pix', { status: 503 }, n); // every read-back of the round
    await check();
    await check(); // a 404 again: the run starts now
    expect((await getBalance(db(), merchant.accountId)).available).toBe(paid.available - sale.netAmount);
    // a run with a gap (nobody asked for minutes: a PSP outage, the gateway down) proves nothing either
    await aged('unknown_since');
    await db().query(
      "UPDATE bcb_devolucoes SET unknown_checked_at = now() - interval '3 minutes' WHERE sale_id = $1",
      [sale.id],
    );
    await check();
    expect((await getBalance(db(), merchant.accountId)).available).toBe(paid.available - sale.netAmount);
    await aged('unknown_since'); // ten minutes of 404s, the last a moment ago
    // held with its attempt in progress: not a forgotten refund
    await db().query(
      "UPDATE sale_refunds SET updated_at = now() - interval '11 minutes' WHERE sale_id = $1",
      [sale.id],
    );
    expect(await releaseForgottenRefunds(db())).toBe(0);
    await check();
    expect(await getBalance(db(), merchant.accountId)).toEqual(paid);
    const rows = await db().query<{ status: string }>(
      'SELECT status FROM bcb_devolucoes WHERE sale_id = $1',
      [sale.id],
    );
    expect(rows).toEqual([{ status: 'NAO_REALIZADO' }]);
    expect(await statusOf(sale.id)).toBe('PAGO');
  });

  it('a read-back that fails (a proxy’s HTML page) does not hold back the others', async () => {
    const sale = (await charge()).body;
    const pix = await psp.pay(sale.externalTransactionId);
    expect((await refund(sale.uuid)).status).toBe(202);
    const dev = psp.state.pix.get(pix.endToEndId)!.devolucoes[0]!;
    await psp.settleRefund(pix.endToEndId, dev.id, 'DEVOLVIDO', { notify: false });
    // the first read-back of the round (the oldest attempt in progress, not this one) meets the page
    psp.failNext('GET /pix', { status: 502, html: '<html>Bad gateway</html>' });
    await expect(check()).rejects.toThrow(/502/); // the round is logged as failed, once it is done
    expect(await statusOf(sale.id)).toBe('ESTORNADO');
  });

  it('an attempt the PSP acknowledged is never taken for lost, whatever it answers later', async () => {
    const sale = (await charge()).body;
    await psp.pay(sale.externalTransactionId);
    expect((await refund(sale.uuid)).status).toBe(202); // PUT answered 201: acknowledged
    const held = await getBalance(db(), merchant.accountId);
    await db().query(
      `UPDATE bcb_devolucoes SET sent_at = now() - interval '11 minutes', unknown_since = now() - interval '11 minutes',
              unknown_checked_at = now() WHERE sale_id = $1`,
      [sale.id],
    );
    psp.failNext('GET /pix', { status: 404 }); // a lagging replica answering 404 (JSON)
    await check();
    expect(await getBalance(db(), merchant.accountId)).toEqual(held);
    const [row] = await db().query<{ status: string }>(
      'SELECT status FROM bcb_devolucoes WHERE sale_id = $1',
      [sale.id],
    );
    expect(row!.status).toBe('EM_PROCESSAMENTO');
  });

  it('a refund recorded DEVOLVIDO whose sale a crash left PAGO is finished from its hold, not given back', async () => {
    const sale = (await charge()).body;
    const pix = await psp.pay(sale.externalTransactionId);
    const paid = await getBalance(db(), merchant.accountId);
    expect((await refund(sale.uuid)).status).toBe(202);
    const dev = psp.state.pix.get(pix.endToEndId)!.devolucoes[0]!;
    await psp.settleRefund(pix.endToEndId, dev.id, 'DEVOLVIDO', { notify: false });
    // the report recorded, then the crash: the sale still PAGO and held, untouched for a while
    await db().query(
      "UPDATE bcb_devolucoes SET status = 'DEVOLVIDO', updated_at = now() - interval '2 minutes' WHERE sale_id = $1",
      [sale.id],
    );
    await db().query(
      "UPDATE sale_refunds SET updated_at = now() - interval '11 minutes' WHERE sale_id = $1",
      [sale.id],
    );
    expect(await releaseForgottenRefunds(db())).toBe(0);
    await check();
    expect(await statusOf(sale.id)).toBe('ESTORNADO');
    expect(await getBalance(db(), merchant.accountId)).toMatchObject({
      available: paid.available - sale.netAmount,
      blocked: paid.blocked,
    });
  });

  it('retries racing the PSP’s NAO_REALIZADO never leave an attempt in progress without its money held', async () => {
    const sales = [];
    for (let i = 0; i < 6; i++) {
      const sale = (await charge()).body;
      const pix = await psp.pay(sale.externalTransactionId);
      expect((await refund(sale.uuid)).status).toBe(202);
      sales.push({ sale, pix });
    }
    await Promise.all(
      sales.flatMap(({ sale, pix }) => [
        psp.settleRefund(
          pix.endToEndId,
          psp.state.pix.get(pix.endToEndId)!.devolucoes[0]!.id,
          'NAO_REALIZADO',
        ),
        refund(sale.uuid),
        refund(sale.uuid),
        refund(sale.uuid),
      ]),
    );
    for (const { sale } of sales) {
      const [row] = await db().query<{ refund_held: boolean; in_progress: boolean }>(
        `SELECT s.refund_pending_net > 0 AS refund_held, EXISTS (SELECT 1 FROM bcb_devolucoes d WHERE d.sale_id = s.id AND d.requested
                                         AND d.status = 'EM_PROCESSAMENTO') AS in_progress
           FROM sales s WHERE s.id = $1`,
        [sale.id],
      );
      expect(row!.refund_held, `sale ${sale.id}`).toBe(row!.in_progress);
    }
    expect((await verifyLedger(db())).ok).toBe(true);
  });

  it('DEVOLVIDO without a callback → ESTORNADO once; NAO_REALIZADO → refundable again', async () => {
    const paid = async () => {
      const sale = (await charge()).body;
      const pix = await psp.pay(sale.externalTransactionId);
      expect((await refund(sale.uuid)).status).toBe(202);
      return { sale, pix, devs: () => psp.state.pix.get(pix.endToEndId)!.devolucoes };
    };
    const a = await paid();
    const b = await paid();
    const still = await paid();
    await psp.settleRefund(a.pix.endToEndId, a.devs()[0]!.id, 'DEVOLVIDO', { notify: false });
    await psp.settleRefund(b.pix.endToEndId, b.devs()[0]!.id, 'NAO_REALIZADO', { notify: false });
    expect(await statusOf(a.sale.id)).toBe('PAGO');

    expect(await check()).toBe(2);
    expect(psp.state.log).toContain(`GET /pix/${a.pix.endToEndId}/devolucao/${a.devs()[0]!.id}`);
    expect(await statusOf(a.sale.id)).toBe('ESTORNADO');
    expect(await statusOf(b.sale.id)).toBe('PAGO');
    expect(await statusOf(still.sale.id)).toBe('PAGO');
    expect(await check()).toBe(0); // only `still` is left in progress
    expect((await eventsOf(server, 'sale', a.sale.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.paid',
      'sale.refunded',
    ]);
    // the late callback changes nothing more
    await psp.settleRefund(a.pix.endToEndId, a.devs()[0]!.id, 'DEVOLVIDO');
    expect(
      (await eventsOf(server, 'sale', a.sale.id)).filter((e) => e.event_type === 'sale.refunded'),
    ).toHaveLength(1);

    const again = await refund(b.sale.uuid);
    expect(again.status, again.text).toBe(202);
    expect(b.devs()).toHaveLength(2);
    expect(b.devs()[1]!.id).not.toBe(b.devs()[0]!.id);
  });
});

describe('devoluções the gateway did not request (reported by the /pix webhook)', () => {
  /** A devolução made at the PSP (not through the gateway), reported DEVOLVIDO by the webhook. */
  const devolvedAtPsp = async (e2eid: string, id: string, valor: string) => {
    psp.state.pix.get(e2eid)!.devolucoes.push({
      id,
      rtrId: 'D99999999202611221200ccccccccccc',
      valor,
      horario: { solicitacao: new Date().toISOString() },
      status: 'EM_PROCESSAMENTO',
    });
    await psp.settleRefund(e2eid, id, 'DEVOLVIDO');
  };
  const refund = (uuid: string) =>
    call<SaleBody>('POST', `${server.url}/api/transactions/${uuid}/refund`, { headers: merchant.keys });
  const devolucoes = (saleId: number) =>
    db().query<{ id: string; amount: number; requested: boolean; status: string }>(
      'SELECT id, amount, requested, status FROM bcb_devolucoes WHERE sale_id = $1',
      [saleId],
    );

  it('of the full amount: the sale becomes ESTORNADO like a requested refund (once)', async () => {
    const sale = (await charge(saleInput({ amount: 5000 }))).body;
    const pix = await psp.pay(sale.externalTransactionId);
    const before = await getBalance(db(), merchant.accountId);
    await devolvedAtPsp(pix.endToEndId, 'bankrefund1', '50.00');
    await psp.settleRefund(pix.endToEndId, 'bankrefund1', 'DEVOLVIDO'); // reported twice
    expect(await statusOf(sale.id)).toBe('ESTORNADO');
    expect((await eventsOf(server, 'sale', sale.id)).map((e) => e.event_type)).toEqual([
      'sale.pending',
      'sale.paid',
      'sale.refunded',
    ]);
    expect((await getBalance(db(), merchant.accountId)).total).toBeLessThan(before.total);
    expect(await devolucoes(sale.id)).toEqual([
      { id: 'bankrefund1', amount: 5000, requested: false, status: 'DEVOLVIDO' },
    ]);
    // a refund listed, and carried by its sale.refunded: the sale's refunds add up to its refundedAmount
    const listed = await call<{ amountCents: number; status: string; reason: string }[]>(
      'GET',
      `${server.url}/api/transactions/${sale.uuid}/refunds`,
      { headers: merchant.keys },
    );
    expect(listed.body).toMatchObject([
      {
        amountCents: 5000,
        status: 'succeeded',
        reason: 'Made at the payment processor without a request of the gateway',
      },
    ]);
    const [refunded] = (await eventsOf(server, 'sale', sale.id)).filter(
      (e) => e.event_type === 'sale.refunded',
    );
    expect(JSON.parse(refunded!.webhook_body as string).refund).toMatchObject({ amountCents: 5000 });
  });

  it('of part of the amount: a refund made, the sale stays PAGO with its refundedAmount', async () => {
    const sale = (await charge(saleInput({ amount: 5000 }))).body;
    const pix = await psp.pay(sale.externalTransactionId);
    const before = await getBalance(db(), merchant.accountId);
    await devolvedAtPsp(pix.endToEndId, 'bankrefund2', '10.00');
    expect(await statusOf(sale.id)).toBe('PAGO');
    const share = Math.floor((sale.netAmount * 1000) / 5000);
    expect(await getBalance(db(), merchant.accountId)).toMatchObject({
      available: before.available - share,
      blocked: before.blocked,
    });
    const now = await call<SaleBody>('GET', `${server.url}/api/transactions/${sale.uuid}`, {
      headers: merchant.keys,
    });
    expect(now.body).toMatchObject({ status: 'PAGO', refundedAmount: 1000 });
    await psp.settleRefund(pix.endToEndId, 'bankrefund2', 'DEVOLVIDO'); // reported again: once
    const again = await call<SaleBody>('GET', `${server.url}/api/transactions/${sale.uuid}`, {
      headers: merchant.keys,
    });
    expect(again.body).toMatchObject({ refundedAmount: 1000 });
    expect(await devolucoes(sale.id)).toEqual([
      { id: 'bankrefund2', amount: 1000, requested: false, status: 'DEVOLVIDO' },
    ]);
    // a refund through the gateway then asks for what is left of the Pix, not its whole value
    const res = await refund(sale.uuid);
    expect(res.status, res.text).toBe(202);
    const asked = psp.state.pix.get(pix.endToEndId)!.devolucoes.at(-1)!;
    expect(asked.id).not.toBe('bankrefund2');
    expect(asked.valor).toBe('40.00');
  });

  it('made while a refund of the gateway is in progress: recorded whole, and the refund not made gives its hold back', async () => {
    server.logs.expect('devolução the gateway did not request');
    const sale = (await charge(saleInput({ amount: 5000 }))).body;
    const pix = await psp.pay(sale.externalTransactionId);
    const paid = await getBalance(db(), merchant.accountId);
    // at the PSP first (in progress), then the gateway's refund of it all: the PSP refuses it (beyond the Pix)
    psp.state.pix.get(pix.endToEndId)!.devolucoes.push({
      id: 'bankrefund3',
      rtrId: 'D99999999202611221200eeeeeeeeeee',
      valor: '30.00',
      horario: { solicitacao: new Date().toISOString() },
      status: 'EM_PROCESSAMENTO',
    });
    const asked = await refund(sale.uuid);
    expect(asked.status, asked.text).toBe(502);
    await psp.settleRefund(pix.endToEndId, 'bankrefund3', 'DEVOLVIDO');
    const share = Math.floor((sale.netAmount * 3000) / 5000);
    const now = await call<SaleBody & { refundedAmount: number }>(
      'GET',
      `${server.url}/api/transactions/${sale.uuid}`,
      { headers: merchant.keys },
    );
    expect(now.body).toMatchObject({ status: 'PAGO', refundedAmount: 3000 });
    // its share out of available; the refund in progress still holds the whole net
    expect(await getBalance(db(), merchant.accountId)).toMatchObject({
      available: paid.available - sale.netAmount - share,
      blocked: paid.blocked + sale.netAmount,
    });
    // the refund in progress ends not made: its hold comes back, the devolução made stays recorded
    const [pending] = await db().query<{ id: number }>(
      "SELECT id FROM sale_refunds WHERE sale_id = $1 AND status = 'PENDING'",
      [sale.id],
    );
    await db().query("UPDATE bcb_devolucoes SET status = 'NAO_REALIZADO' WHERE sale_id = $1 AND requested", [
      sale.id,
    ]);
    await db().query("UPDATE sale_refunds SET updated_at = now() - interval '11 minutes' WHERE id = $1", [
      pending!.id,
    ]);
    expect(await releaseForgottenRefunds(db())).toBe(1);
    expect(await getBalance(db(), merchant.accountId)).toMatchObject({
      available: paid.available - share,
      blocked: paid.blocked,
    });
    const listed = await call<{ amountCents: number; status: string }[]>(
      'GET',
      `${server.url}/api/transactions/${sale.uuid}/refunds`,
      { headers: merchant.keys },
    );
    expect(listed.body.map((r) => [r.amountCents, r.status])).toEqual([
      [5000, 'failed'],
      [3000, 'succeeded'],
    ]);
    expect((await verifyLedger(db())).problems).toEqual([]);
  });

  it("another amount reported under the gateway's own devolução id is never taken for its refund", async () => {
    server.logs.expect('where the gateway asked 1000 cents under that id');
    const sale = (await charge(saleInput({ amount: 5000 }))).body;
    const pix = await psp.pay(sale.externalTransactionId);
    const paid = await getBalance(db(), merchant.accountId);
    const res = await call<SaleBody>('POST', `${server.url}/api/transactions/${sale.uuid}/refund`, {
      headers: merchant.keys,
      body: { amountCents: 1000 },
    });
    expect(res.status, res.text).toBe(202);
    const ours = psp.state.pix.get(pix.endToEndId)!.devolucoes.at(-1)!;
    expect(ours.valor).toBe('10.00');
    ours.valor = '30.00'; // the PSP's mistake: another devolução's amount under our id
    await psp.settleRefund(pix.endToEndId, ours.id, 'DEVOLVIDO');
    // the refund stays in progress, its money held; nothing refunded
    const now = await call<SaleBody>('GET', `${server.url}/api/transactions/${sale.uuid}`, {
      headers: merchant.keys,
    });
    expect(now.body).toMatchObject({ status: 'PAGO', refundedAmount: 0 });
    expect(await devolucoes(sale.id)).toEqual([
      { id: ours.id, amount: 1000, requested: true, status: 'EM_PROCESSAMENTO' },
    ]);
    const held = await getBalance(db(), merchant.accountId);
    expect(held.total).toBe(paid.total);
    expect(held.blocked).toBeGreaterThan(paid.blocked);
  });
});

describe('the unauthenticated /pix webhook reads back little', () => {
  const webhook = (pix: unknown[]) =>
    call<{ outcomes: string[] }>('POST', `${server.url}/api/providers/bcb/webhook/pix`, { body: { pix } });
  const pixReads = () => psp.state.log.filter((l) => l.startsWith('GET /pix/')).length;

  it('a callback without pix (optional in the standard) announces nothing: 200, no PSP call', async () => {
    const before = psp.state.log.length;
    const res = await call<{ outcomes: string[] }>('POST', `${server.url}/api/providers/bcb/webhook/pix`, {
      body: {},
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ outcomes: [] });
    expect(psp.state.log.length).toBe(before);
  });

  it('invalid end-to-end ids are refused without a PSP call and never fail the valid Pix beside them', async () => {
    const sale = (await charge()).body;
    const pix = await psp.pay(sale.externalTransactionId, { times: 0 });
    const txid = sale.externalTransactionId;
    const before = psp.state.log.length;
    const res = await webhook([
      { endToEndId: `../cob/${txid}`, txid },
      { endToEndId: `E-${'a'.repeat(30)}`, txid },
      { endToEndId: 'E99999999202611221200aaaaaaaaa\u0000', txid },
      { endToEndId: 42, txid },
      { txid },
      { endToEndId: 'E'.repeat(5000), txid },
      { endToEndId: 'E99999999202611221200aaaaaaaaaac', txid: 'a\u0000b' },
      { endToEndId: 'E99999999202611221200aaaaaaaaaad', txid: { $ne: 1 } },
      null,
      7,
      [pix.endToEndId, txid],
      { endToEndId: pix.endToEndId, txid },
    ]);
    expect(res.status, res.text).toBe(200);
    expect(res.body.outcomes).toEqual([
      'refused',
      'refused',
      'refused',
      'refused',
      'refused',
      'refused',
      'not_ours',
      'not_ours',
      'refused',
      'refused',
      'refused',
      'credited',
    ]);
    expect(psp.state.log.slice(before)).toEqual([`GET /pix/${pix.endToEndId}`]);
    expect(await statusOf(sale.id)).toBe('PAGO');

    // a Pix already confirmed is not read again (unless the entry lists devoluções)
    const again = await webhook([{ endToEndId: pix.endToEndId, txid }]);
    expect(again.body.outcomes).toEqual(['duplicate']);
    expect(psp.state.log).toHaveLength(before + 1);
  });

  it('reads back at most 100 per request and answers 503 so the PSP sends the rest again', async () => {
    const txid = (await charge()).body.externalTransactionId;
    const fake = (i: number) => `E99999999202611221200${String(i).padStart(11, '0')}`;
    const before = pixReads();
    const res = await webhook(Array.from({ length: 150 }, (_, i) => ({ endToEndId: fake(i), txid })));
    expect(res.status).toBe(503);
    expect(res.body.outcomes.filter((o) => o === 'not_confirmed')).toHaveLength(100);
    expect(res.body.outcomes.slice(100)).toEqual(Array(50).fill('deferred'));
    expect(pixReads() - before).toBe(100);

    // 1,000 entries naming no charge of ours: no PSP call at all
    const unknown = await webhook(
      Array.from({ length: 1000 }, (_, i) => ({ endToEndId: fake(i), txid: 'x' })),
    );
    expect(unknown.status).toBe(200);
    expect(pixReads() - before).toBe(100);
  });

  it('a PSP failing on one read-back defers the rest (503) instead of failing the request', async () => {
    const sale = (await charge()).body;
    const pix = await psp.pay(sale.externalTransactionId, { times: 0 });
    psp.failNext('GET /pix', { status: 500 });
    const entry = { endToEndId: pix.endToEndId, txid: sale.externalTransactionId };
    const first = await webhook([entry]);
    expect(first.status).toBe(503);
    expect(first.body.outcomes).toEqual(['deferred']);
    const retried = await webhook([entry]);
    expect(retried.status).toBe(200);
    expect(retried.body.outcomes).toEqual(['credited']);
  });
});

describe('PixApiClient', () => {
  it('gives up on a PSP that does not answer (PspError, no retry of the call)', async () => {
    const { PixApiClient } = await import('../../src/payment-standards/pix-api-client.js');
    const config = server.runtime.platform.config.bcb!;
    const client = new PixApiClient(config, 300);
    try {
      await client.call('GET', '/pix/E99999999202611221200bbbbbbbbbbb'); // token fetched, then cached
      psp.failNext('PUT /cob', { hang: true });
      const before = psp.state.log.filter((l) => l.startsWith('PUT /cob/')).length;
      await expect(client.call('PUT', '/cob/hangingtxid0000000000000000000001', {})).rejects.toThrow(
        /unreachable or too slow/,
      );
      expect(psp.state.log.filter((l) => l.startsWith('PUT /cob/')).length).toBe(before + 1);
    } finally {
      await client.close();
    }
  });
});

// last in the file: it leaves a hundred refunds in progress at the PSP
describe('forgotten holds', () => {
  it('one left by a crash is found behind a hundred older holds whose refunds are under way', async () => {
    const m = await createMerchant(server, 'Busy Refunder');
    const paidSale = async () => {
      const sale = (
        await call<SaleBody>('POST', `${server.url}/api/transactions`, { headers: m.keys, body: saleInput() })
      ).body;
      await psp.pay(sale.externalTransactionId);
      return sale;
    };
    const underWay: number[] = [];
    for (let i = 0; i < 101; i += 10) {
      const sales = await Promise.all(Array.from({ length: Math.min(10, 101 - i) }, paidSale));
      for (const sale of sales) {
        const res = await call('POST', `${server.url}/api/transactions/${sale.uuid}/refund`, {
          headers: m.keys,
        });
        expect(res.status).toBe(202);
        underWay.push(sale.id);
      }
    }
    await db().query(
      "UPDATE sale_refunds SET updated_at = now() - interval '20 minutes' WHERE sale_id = ANY($1)",
      [underWay],
    );
    const lost = await paidSale();
    const paid = await getBalance(db(), m.accountId);
    const { refund } = await openRefund(db(), lost.id, null, null); // then the crash, before the PSP was asked
    await db().query("UPDATE sale_refunds SET updated_at = now() - interval '11 minutes' WHERE id = $1", [
      refund.id,
    ]);
    expect(await releaseForgottenRefunds(db())).toBe(1);
    expect(await getBalance(db(), m.accountId)).toEqual(paid);
    const held = await db().query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sales WHERE refund_pending_net > 0 AND id = ANY($1)',
      [underWay],
    );
    expect(held).toEqual([{ n: 101 }]);
  });
});
