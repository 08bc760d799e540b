/**
 * Risk rules (decisions.md, Risk): risk operators write rules at /api/ops/risk-rules; `block` refuses the sale
 * (RECUSADO, refusalReason RISK_BLOCKED) before anything reaches the acquirer or the PSP; `review` holds a card
 * authorization uncaptured (EM_PROCESSAMENTO) in the console's queue: approve captures, reject voids
 * (RECUSADO, RISK_REJECTED), and an undecided review is voided after RISK_REVIEW_HOURS. Every decision is on
 * the sale (`risk`) and in the operator audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardSales, cardFingerprint } from '../../src/cards/index.js';
import { SandboxAcquirer } from '../../src/cards/sandbox-acquirer.js';
import { expireRiskReview } from '../../src/risk/index.js';
import { cardBody, cardEnding } from '../cards/cards.js';
import { createLink, createSession, PAYER } from '../checkout/fixtures.js';
import { CUSTOMER, eventsOf, type SaleBody, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

type Sale = SaleBody & {
  refusalReason?: { code: string; message: string };
  risk?: { decision: string; rule: number | null; ruleName?: string; reviewStatus?: string };
};

let server: TestServer;
let merchant: TestMerchant;
let risk: TestOperator;
let support: TestOperator;
const db = () => server.runtime.platform.db;

beforeAll(async () => {
  server = await startServer({
    workers: false,
    env: { TRUST_PROXY: '127.0.0.1,::1,::ffff:127.0.0.1', RISK_CARD_ATTEMPTS_PER_IP: '0' },
  });
  merchant = await createMerchant(server);
  risk = await createOperator(server, 'risk');
  support = await createOperator(server, 'support');
});
afterAll(() => server?.close());

const rules = `/api/ops/risk-rules`;
const writeRule = (body: unknown, who = risk) =>
  call<{ id: number; error?: { code: string; message: string } }>('POST', `${server.url}${rules}`, {
    headers: who.ops,
    body,
  });
const deleteRule = (id: number) => call('DELETE', `${server.url}${rules}/${id}`, { headers: risk.ops });

async function withRule<T>(body: unknown, fn: (id: number) => Promise<T>): Promise<T> {
  const made = await writeRule(body);
  expect(made.status, made.text).toBe(201);
  try {
    return await fn(made.body.id);
  } finally {
    expect((await deleteRule(made.body.id)).status).toBe(204);
  }
}

async function tokenFor(number: string, ip = '198.51.100.1'): Promise<string> {
  const res = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': merchant.publicKey, 'x-forwarded-for': ip },
    body: cardBody(number),
  });
  expect(res.status, res.text).toBe(201);
  return res.body.token;
}

const sell = (body: unknown) =>
  call<Sale>('POST', `${server.url}/api/transactions`, { headers: merchant.keys, body });

async function cardSale(extra: Record<string, unknown> = {}, number = cardEnding('0'), ip?: string) {
  const token = await tokenFor(number, ip);
  const res = await sell(saleInput({ paymentMethod: 'CREDIT_CARD', card: { token }, ...extra }));
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const acquirerPayments = async (uuid: string) =>
  db().query<{ state: string; captured_cents: number }>(
    'SELECT state, captured_cents FROM sandbox_acquirer_payments WHERE order_id = $1',
    [uuid],
  );

const auditOf = async (target: string) =>
  db().query<{ action: string; operator_email: string; after: Record<string, unknown> }>(
    'SELECT action, operator_email, after FROM operator_audit WHERE target = $1 ORDER BY id',
    [target],
  );

const lookup = async (id: number) =>
  (await call<Sale>('GET', `${server.url}/api/transactions/${id}`, { headers: merchant.keys })).body;

describe('risk rules at /api/ops/risk-rules', () => {
  it('risk operators write, list and delete them, audited; support only reads; bad rules are 400', async () => {
    const refused = await writeRule({ name: 'x', when: { amountCentsAbove: 1 }, action: 'block' }, support);
    expect(refused.status).toBe(403);
    expect((await call('GET', `${server.url}${rules}`, { headers: support.ops })).status).toBe(403);

    for (const [body, words] of [
      [{ name: 'all', when: {}, action: 'block' }, 'at least one condition'],
      [{ name: 'bin', when: { binIn: ['4111'] }, action: 'block' }, 'binIn'],
      [{ name: 'ip', when: { ipIn: ['not-an-ip'] }, action: 'block' }, 'ipIn'],
      [{ name: 'pix review', when: { methods: ['PIX'], amountCentsAbove: 1 }, action: 'review' }, 'card'],
      [{ name: 'doc', when: { documentIn: ['123'] }, action: 'block' }, 'documentIn'],
      // check digits wrong: no charge could carry it, so the rule would never match (a typo in a blocklist)
      [{ name: 'cpf', when: { documentIn: ['123.456.789-00'] }, action: 'block' }, 'documentIn'],
      [{ name: 'cnpj', when: { documentIn: ['11222333000100'] }, action: 'block' }, 'documentIn'],
      [{ name: 'huge', when: { amountCentsAbove: 1e300 }, action: 'block' }, 'amountCentsAbove'],
    ] as const) {
      const res = await writeRule(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.text).toContain(words);
    }
    expect((await writeRule({ name: 'x', when: { foo: 1 }, action: 'block' })).status).toBe(400);
    expect((await writeRule({ name: 'x', when: { amountCentsAbove: 1 }, action: 'allow' })).status).toBe(400);

    const made = await writeRule({
      name: 'Domínios descartáveis',
      when: { emailDomainIn: ['@Mailinator.com'], ipIn: ['203.0.113.0/24', '2001:db8::1'] },
      action: 'block',
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({
      name: 'Domínios descartáveis',
      when: { emailDomainIn: ['mailinator.com'], ipIn: ['203.0.113.0/24', '2001:db8::1'] },
      action: 'block',
      createdBy: risk.email,
    });
    const list = await call<{ data: { id: number }[] }>('GET', `${server.url}${rules}`, {
      headers: risk.ops,
    });
    expect(list.body.data.map((r) => r.id)).toContain(made.body.id);
    expect((await deleteRule(made.body.id)).status).toBe(204);
    expect((await deleteRule(made.body.id)).status).toBe(404);
    expect((await auditOf(`risk_rule:${made.body.id}`)).map((a) => a.action)).toEqual([
      'risk_rule.created',
      'risk_rule.deleted',
    ]);
  });
});

describe('block', () => {
  it('a card of a blocked e-mail domain: RECUSADO RISK_BLOCKED, the acquirer never asked, audited', async () => {
    await withRule(
      { name: 'Bloqueio de domínio', when: { emailDomainIn: ['fraude.example'] }, action: 'block' },
      async (ruleId) => {
        const sale = await cardSale({ customer: { ...CUSTOMER, email: 'Comprador@FRAUDE.example' } });
        expect(sale).toMatchObject({
          status: 'RECUSADO',
          refusalReason: { code: 'RISK_BLOCKED' },
          risk: { decision: 'block', rule: ruleId, ruleName: 'Bloqueio de domínio' },
        });
        expect(await acquirerPayments(sale.uuid)).toEqual([]);
        expect(await lookup(sale.id)).toMatchObject({ status: 'RECUSADO', risk: { decision: 'block' } });
        const [audit] = await auditOf(`sale:${sale.id}`);
        expect(audit).toMatchObject({
          action: 'risk.block',
          operator_email: 'risk-rules',
          after: { rule: ruleId },
        });
        const events = await eventsOf(server, 'sale', sale.id);
        const refusedEvent = events.find((e) => e.event_type === 'sale.refused');
        expect(refusedEvent, JSON.stringify(events.map((e) => e.event_type))).toBeDefined();
        expect(JSON.parse(refusedEvent!.webhook_body)).toMatchObject({
          status: 'RECUSADO',
          refusalReason: { code: 'RISK_BLOCKED' },
          risk: { decision: 'block', rule: ruleId },
        });
        // another domain pays, and carries no decision
        const honest = await cardSale();
        expect(honest.status).toBe('PAGO');
        expect(honest).not.toHaveProperty('risk');
      },
    );
  });

  it('blocklists of BINs, card fingerprints and addresses (the address the card was typed from)', async () => {
    const binCard = cardEnding('0', '522222');
    await withRule({ name: 'BIN', when: { binIn: ['522222'] }, action: 'block' }, async () => {
      expect((await cardSale({}, binCard)).refusalReason?.code).toBe('RISK_BLOCKED');
      expect((await cardSale()).status).toBe('PAGO');
    });
    const stolen = cardEnding('1');
    const fingerprint = cardFingerprint(server.runtime.platform.config.secretsKey, stolen);
    await withRule(
      { name: 'Cartão', when: { cardFingerprintIn: [fingerprint] }, action: 'block' },
      async () => {
        expect((await cardSale({}, stolen)).refusalReason?.code).toBe('RISK_BLOCKED');
      },
    );
    await withRule({ name: 'Rede', when: { ipIn: ['203.0.113.0/24'] }, action: 'block' }, async () => {
      expect((await cardSale({}, cardEnding('0'), '203.0.113.77')).refusalReason?.code).toBe('RISK_BLOCKED');
      expect((await cardSale({}, cardEnding('0'), '198.51.100.77')).status).toBe('PAGO');
    });
  });

  it('a PIX charge of a blocked document: RECUSADO RISK_BLOCKED, no charge opened at the PSP; a replay answers it', async () => {
    await withRule(
      {
        name: 'Documento',
        when: { documentIn: ['529.982.247-25'], methods: ['PIX', 'BOLETO'] },
        action: 'block',
      },
      async (ruleId) => {
        const res = await call<Sale>('POST', `${server.url}/api/transactions`, {
          headers: { ...merchant.keys, 'idempotency-key': 'risk-pix-1' },
          body: saleInput(),
        });
        expect(res.status, res.text).toBe(201);
        expect(res.body).toMatchObject({
          status: 'RECUSADO',
          pixKey: null,
          refusalReason: { code: 'RISK_BLOCKED' },
          risk: { decision: 'block', rule: ruleId },
        });
        const again = await call<Sale>('POST', `${server.url}/api/transactions`, {
          headers: { ...merchant.keys, 'idempotency-key': 'risk-pix-1' },
          body: saleInput(),
        });
        expect(again.body.id).toBe(res.body.id);
        // the rule names PIX and BOLETO: a card of the same document goes on
        expect((await cardSale()).status).toBe('PAGO');
      },
    );
    // the rule deleted: the same charge opens
    const open = await sell(saleInput());
    expect(open.body).toMatchObject({ status: 'PENDENTE' });
    expect(open.body.pixKey).not.toBeNull();
  });
});

describe('block on the hosted pages', () => {
  it("a payer's PIX or boleto of a blocked e-mail domain: 403, the refused sale recorded on the link or session", async () => {
    await withRule(
      { name: 'Domínio do pagador', when: { emailDomainIn: ['golpe.example'] }, action: 'block' },
      async (ruleId) => {
        const link = await createLink(server, merchant, { methods: ['PIX', 'BOLETO'] });
        const payer = { ...PAYER, email: 'alguem@golpe.example' };
        const pix = await call<{ message: string }>('POST', `${server.url}/api/public/pay/${link.slug}`, {
          body: payer,
        });
        expect(pix.status, pix.text).toBe(403);
        expect(pix.body.message).toContain('recusado');
        const address = {
          street: 'Rua A',
          number: '1',
          district: 'Centro',
          city: 'São Paulo',
          state: 'SP',
          zipCode: '01001000',
        };
        const session = await createSession(server, merchant, { methods: ['BOLETO'] });
        const boleto = await call('POST', `${server.url}/api/public/checkout/${session.id}/boleto`, {
          body: { ...payer, address },
        });
        expect(boleto.status, boleto.text).toBe(403);
        const refused = await db().query<{ payment_method: string; status: string; risk: { rule: number } }>(
          `SELECT payment_method, status, risk FROM sales WHERE payment_link_id = $1 OR checkout_session_id = $2
            ORDER BY id`,
          [link.id, session.id],
        );
        expect(refused.map((r) => [r.payment_method, r.status, r.risk.rule])).toEqual([
          ['PIX', 'RECUSADO', ruleId],
          ['BOLETO', 'RECUSADO', ruleId],
        ]);
        // another payer pays the same link
        const honest = await call('POST', `${server.url}/api/public/pay/${link.slug}`, { body: PAYER });
        expect(honest.status, honest.text).toBe(201);
      },
    );
  });
});

describe('review', () => {
  const reviewOf = async (saleId: number) => {
    const page = await call<{ data: { id: number; saleId: number | null; kind: string }[] }>(
      'GET',
      `${server.url}/api/ops/reviews?kind=risk`,
      { headers: risk.ops },
    );
    return page.body.data.find((r) => r.saleId === saleId);
  };
  const decide = (id: number, decision: 'approve' | 'reject') =>
    call<{ status: string }>('POST', `${server.url}/api/ops/reviews/${id}/${decision}`, {
      headers: risk.ops,
      body: { reason: 'conferido' },
    });

  it('holds the authorization uncaptured; the merchant cannot capture it; approve captures (PAGO)', async () => {
    await withRule(
      { name: 'Valor alto', when: { amountCentsAbove: 50_000, methods: ['CREDIT_CARD'] }, action: 'review' },
      async (ruleId) => {
        const sale = await cardSale({
          amount: 90_000,
          items: [{ title: 'TV', unitPrice: 90_000, quantity: 1, tangible: false }],
        });
        expect(sale).toMatchObject({
          status: 'EM_PROCESSAMENTO',
          risk: { decision: 'review', rule: ruleId, reviewStatus: 'pending' },
        });
        expect((await acquirerPayments(sale.uuid))[0]).toMatchObject({ state: 'authorized' });
        const capture = await call('POST', `${server.url}/api/transactions/${sale.id}/capture`, {
          headers: merchant.keys,
        });
        expect(capture.status).toBe(409);
        // nor can the sandbox report it paid (or anything else) around the review
        for (const status of ['PAGO', 'RECUSADO']) {
          const moved = await call<{ success: boolean; error: { code: string } }>(
            'POST',
            `${server.url}/api/sandbox/sales/${sale.id}/status`,
            { headers: merchant.keys, body: { status } },
          );
          expect(moved.status, moved.text).toBe(409);
          expect(moved.body).toMatchObject({ success: false, error: { code: 'CONFLICT' } });
        }
        expect(await lookup(sale.id)).toMatchObject({ status: 'EM_PROCESSAMENTO' });
        const review = await reviewOf(sale.id);
        expect(review).toMatchObject({ kind: 'risk', saleId: sale.id });
        const approved = await decide(review!.id, 'approve');
        expect(approved.status, approved.text).toBe(200);
        expect(approved.body.status).toBe('approved');
        expect(await lookup(sale.id)).toMatchObject({
          status: 'PAGO',
          paidAmount: 90_000,
          risk: { decision: 'review', reviewStatus: 'approved' },
        });
        expect((await acquirerPayments(sale.uuid))[0]).toMatchObject({
          state: 'captured',
          captured_cents: 90_000,
        });
        expect((await decide(review!.id, 'approve')).status).toBe(409);
        const actions = (await auditOf(`sale:${sale.id}`)).map((a) => a.action);
        expect(actions).toEqual(['risk.review']);
        expect((await auditOf(`review:${review!.id}`)).map((a) => a.action)).toEqual(['review.approved']);
        // below the amount: captured at once
        expect(
          (
            await cardSale({
              amount: 1000,
              items: [{ title: 'x', unitPrice: 1000, quantity: 1, tangible: false }],
            })
          ).status,
        ).toBe('PAGO');
      },
    );
  });

  it('reject voids it: RECUSADO with RISK_REJECTED, nothing paid', async () => {
    await withRule(
      { name: 'Revisar', when: { emailIn: ['suspeito@example.com'] }, action: 'review' },
      async () => {
        const sale = await cardSale({ customer: { ...CUSTOMER, email: 'suspeito@example.com' } });
        expect(sale.status).toBe('EM_PROCESSAMENTO');
        const review = await reviewOf(sale.id);
        const rejected = await decide(review!.id, 'reject');
        expect(rejected.status, rejected.text).toBe(200);
        expect(await lookup(sale.id)).toMatchObject({
          status: 'RECUSADO',
          refusalReason: { code: 'RISK_REJECTED' },
          risk: { reviewStatus: 'rejected' },
        });
        expect((await acquirerPayments(sale.uuid))[0]).toMatchObject({ state: 'voided' });
      },
    );
  });

  it('an undecided review is voided after RISK_REVIEW_HOURS by the card jobs, its review closed and audited', async () => {
    await withRule(
      { name: 'Revisar 2', when: { emailIn: ['lento@example.com'] }, action: 'review' },
      async () => {
        const sale = await cardSale({ customer: { ...CUSTOMER, email: 'lento@example.com' } });
        const review = await reviewOf(sale.id);
        const { platform } = server.runtime;
        const jobs = new CardSales(
          platform.db,
          platform.queue,
          new SandboxAcquirer(platform.db),
          platform.config.secretsKey,
          {
            allowPrivateTargets: true,
          },
        );
        expect(await jobs.expireRiskHolds(24, expireRiskReview)).toBe(0);
        await db().query(
          `UPDATE card_payments SET authorized_at = now() - interval '25 hours' WHERE sale_id = $1`,
          [sale.id],
        );
        expect(await jobs.expireRiskHolds(24, expireRiskReview)).toBe(1);
        expect(await lookup(sale.id)).toMatchObject({
          status: 'RECUSADO',
          refusalReason: { code: 'RISK_REJECTED' },
          risk: { reviewStatus: 'expired' },
        });
        expect(await reviewOf(sale.id)).toBeUndefined();
        expect((await auditOf(`review:${review!.id}`)).map((a) => [a.action, a.operator_email])).toEqual([
          ['review.expired', 'risk-rules'],
        ]);
        expect((await decide(review!.id, 'approve')).status).toBe(409);
      },
    );
  });
});
