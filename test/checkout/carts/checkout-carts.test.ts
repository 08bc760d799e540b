import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { abandonCheckoutCarts } from '../../../src/checkout/carts/checkout-carts.js';
import { ADDRESS } from '../../boletos/fixtures.js';
import { moveTo } from '../../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { Mailbox } from '../../support/mailbox.js';
import { startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';
import { createLink, createSession, PAYER, type PixPaymentBody } from '../fixtures.js';

let server: TestServer;
let mailbox: Mailbox;
let merchant: TestMerchant;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SMTP_URL: mailbox.url } });
  merchant = await createMerchant(server, 'Loja da Maria');
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

const db = () => server.runtime.platform.db;
const mail = () => ({ queue: server.runtime.platform.queue, key: server.runtime.platform.config.secretsKey });

/** Every cart older than a minute's worth of abandonment counts as left: the run abandons at once. */
const abandonNow = () => abandonCheckoutCarts(db(), mail(), 0);

async function cartEvents(who: TestMerchant) {
  const res = await call<{ data: { id: string; type: string; data: Record<string, unknown> }[] }>(
    'GET',
    `${server.url}/api/events?type=cart.abandoned,cart.recovered`,
    { headers: who.keys },
  );
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

async function paySession(sessionId: string, payer = PAYER) {
  const res = await call<PixPaymentBody>('POST', `${server.url}/api/public/checkout/${sessionId}`, {
    body: payer,
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const setRecoveryMail = (on: boolean) =>
  db().query('UPDATE accounts SET cart_recovery_email = $2 WHERE id = $1', [merchant.accountId, on]);

describe('checkout carts', () => {
  it('a payer who gave their data and did not pay: cart.abandoned once; paid later: cart.recovered', async () => {
    const session = await createSession(server, merchant);
    const payment = await paySession(session.id);
    expect(await abandonCheckoutCarts(db(), mail(), 30)).toBe(0); // not yet left for 30 minutes
    expect(await abandonNow()).toBe(1);
    expect(await abandonNow()).toBe(0); // once
    let events = (await cartEvents(merchant)).filter((e) => e.data.customerEmail === PAYER.email);
    expect(events.map((e) => e.type)).toEqual(['cart.abandoned']);
    expect(events[0]!.data).toMatchObject({
      status: 'ABANDONED',
      amount: '9980',
      saleId: null,
      type: 'CART',
    });

    expect((await moveTo(server, merchant, payment.saleId, 'PAGO')).status).toBe(200);
    events = (await cartEvents(merchant)).filter((e) => e.data.customerEmail === PAYER.email);
    expect(events.map((e) => e.type).sort()).toEqual(['cart.abandoned', 'cart.recovered']);
    const recovered = events.find((e) => e.type === 'cart.recovered')!;
    expect(recovered.data).toMatchObject({
      status: 'RECOVERED',
      saleUuid: payment.saleId,
      id: events[0]!.data.id,
    });
  });

  it("an open link's cart tells the payer's latest amount: abandoned and recovered with the sale they paid", async () => {
    const payer = { ...PAYER, email: 'valor-novo@example.com' };
    const link = await createLink(server, merchant, {
      amountCents: undefined,
      minCents: 1000,
      maxCents: 20000,
    });
    const pay = (amountCents: number) =>
      call<PixPaymentBody>('POST', `${server.url}/api/public/pay/${link.slug}`, {
        body: { ...payer, amountCents },
      });
    expect((await pay(1000)).status).toBe(201);
    const chosen = await pay(20000);
    expect(chosen.status, chosen.text).toBe(201);
    await abandonNow();
    const abandoned = (await cartEvents(merchant)).filter((e) => e.data.customerEmail === payer.email);
    expect(abandoned.map((e) => [e.type, e.data.amount])).toEqual([['cart.abandoned', '20000']]);
    expect((await moveTo(server, merchant, chosen.body.saleId, 'PAGO')).status).toBe(200);
    const recovered = (await cartEvents(merchant)).find(
      (e) => e.type === 'cart.recovered' && e.data.customerEmail === payer.email,
    );
    expect(recovered?.data).toMatchObject({ amount: '20000', saleUuid: chosen.body.saleId });
  });

  it('a payer who chose a boleto left nothing undone: no abandonment while it can be paid; cancelled unpaid, abandoned', async () => {
    await setRecoveryMail(true);
    try {
      const payer = { ...PAYER, email: 'boleto@example.com' };
      const link = await createLink(server, merchant, { methods: ['PIX', 'BOLETO'] });
      const issued = await call<{ saleId: string }>(
        'POST',
        `${server.url}/api/public/pay/${link.slug}/boleto`,
        {
          body: { ...payer, address: ADDRESS },
        },
      );
      expect(issued.status, issued.text).toBe(201);
      await abandonNow();
      const ofPayer = async () =>
        (await cartEvents(merchant)).filter((e) => e.data.customerEmail === payer.email).map((e) => e.type);
      expect(await ofPayer()).toEqual([]);
      await new Promise((r) => setTimeout(r, 300));
      expect(mailbox.messages.filter((m) => m.to === payer.email)).toEqual([]);
      // the boleto cancelled unpaid (its last payable day passed): the payer did leave
      expect((await moveTo(server, merchant, issued.body.saleId, 'CANCELADO')).status).toBe(200);
      await abandonNow();
      expect(await ofPayer()).toEqual(['cart.abandoned']);
    } finally {
      await setRecoveryMail(false);
    }
  });

  it('a payer who pays in time leaves no abandoned cart and no cart event', async () => {
    const payer = { ...PAYER, email: 'pontual@example.com' };
    const session = await createSession(server, merchant);
    const payment = await paySession(session.id, payer);
    expect((await moveTo(server, merchant, payment.saleId, 'PAGO')).status).toBe(200);
    await abandonNow();
    expect((await cartEvents(merchant)).filter((e) => e.data.customerEmail === payer.email)).toEqual([]);
  });

  it('with the account’s setting on, the payer of an abandoned cart gets one e-mail with the page to come back to', async () => {
    await setRecoveryMail(true);
    try {
      const payer = { ...PAYER, email: 'volta@example.com' };
      const link = await createLink(server, merchant);
      const res = await call<PixPaymentBody>('POST', `${server.url}/api/public/pay/${link.slug}`, {
        body: payer,
      });
      expect(res.status, res.text).toBe(201);
      // the same payer again on the same link: the same cart, not a second one
      const again = await call<PixPaymentBody>('POST', `${server.url}/api/public/pay/${link.slug}`, {
        body: payer,
      });
      expect(again.status, again.text).toBe(201);
      expect(await abandonNow()).toBe(1);
      await waitUntil(
        () => mailbox.messages.some((m) => m.to === payer.email),
        20_000,
        () => 'recovery e-mail',
      );
      const sent = mailbox.messages.filter((m) => m.to === payer.email);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.subject).toBe('[Teste] Seu pagamento para Loja da Maria ficou pendente');
      expect(sent[0]!.text).toContain(link.url);
      expect(sent[0]!.text).toContain('R$ 199,00');
      // the Pix the payer left open, to pay from any device (the page knows its payer in one browser only)
      const until = new Date(again.body.expiresAt!).toLocaleString('pt-BR', {
        timeZone: 'America/Sao_Paulo',
        hour: '2-digit',
        minute: '2-digit',
        day: '2-digit',
        month: '2-digit',
      });
      expect(sent[0]!.text).toContain(`continua valendo até ${until} (horário de Brasília)`);
      expect(sent[0]!.text).toContain(`\n${again.body.pixCopyPaste}\n`);
      await abandonNow();
      await new Promise((r) => setTimeout(r, 500));
      expect(mailbox.messages.filter((m) => m.to === payer.email)).toHaveLength(1);
    } finally {
      await setRecoveryMail(false);
    }
  });

  it('a link of one use held by the payer’s own open Pix: the e-mail carries that Pix; once it has ended, the page alone', async () => {
    await setRecoveryMail(true);
    try {
      const payer = { ...PAYER, email: 'uma-vez@example.com' };
      const link = await createLink(server, merchant, { maxUses: 1 });
      const res = await call<PixPaymentBody>('POST', `${server.url}/api/public/pay/${link.slug}`, {
        body: payer,
      });
      expect(res.status, res.text).toBe(201);
      // from another device (no payer token), the link's one use is taken: only the e-mail's Pix pays it
      const elsewhere = await call('POST', `${server.url}/api/public/pay/${link.slug}`, { body: payer });
      expect(elsewhere.status).toBe(410);
      expect(await abandonNow()).toBe(1);
      await waitUntil(
        () => mailbox.messages.some((m) => m.to === payer.email),
        20_000,
        () => 'recovery e-mail',
      );
      const [sent] = mailbox.messages.filter((m) => m.to === payer.email);
      expect(sent!.text).toContain(`\n${res.body.pixCopyPaste}\n`);

      // a cart whose Pix has ended: the page's link alone, as before
      const later = { ...PAYER, email: 'depois@example.com' };
      const other = await createLink(server, merchant);
      const paid = await call<PixPaymentBody>('POST', `${server.url}/api/public/pay/${other.slug}`, {
        body: later,
      });
      expect(paid.status, paid.text).toBe(201);
      await db().query(`UPDATE sales SET charge_expires_at = now() - interval '1 second' WHERE uuid = $1`, [
        paid.body.saleId,
      ]);
      expect(await abandonNow()).toBe(1);
      await waitUntil(
        () => mailbox.messages.some((m) => m.to === later.email),
        20_000,
        () => 'recovery e-mail',
      );
      const [plain] = mailbox.messages.filter((m) => m.to === later.email);
      expect(plain!.text).toContain('abra o link abaixo: a página mostra de novo como pagar');
      expect(plain!.text).not.toContain('continua valendo');
    } finally {
      await setRecoveryMail(false);
    }
  });

  it('with the setting off (the default), no e-mail; a sandbox cart is never abandoned by the clock', async () => {
    const payer = { ...PAYER, email: 'sem-email@example.com' };
    const session = await createSession(server, merchant);
    await paySession(session.id, payer);
    const sandbox = await call<{ uuid: string; status: string }>('POST', `${server.url}/api/sandbox/carts`, {
      headers: merchant.keys,
      body: {
        customer: { name: 'Ana', email: 'ana@example.com', document: '52998224725', phone: '11999999999' },
        items: [{ title: 'Livro', unitPrice: 5000, quantity: 1, tangible: true }],
      },
    });
    expect(sandbox.status, sandbox.text).toBe(201);
    expect(await abandonNow()).toBe(1);
    await new Promise((r) => setTimeout(r, 1000));
    expect(mailbox.messages.filter((m) => m.to === payer.email)).toEqual([]);
    const [row] = await db().query<{ status: string }>('SELECT status FROM carts WHERE uuid = $1', [
      sandbox.body.uuid,
    ]);
    expect(row!.status).toBe('OPEN');
  });
});
