/**
 * A blocklist holds however the blocked buyer writes the address (decisions.md, Risk; docs/decisions.md, the
 * canonical e-mail): red-team attempts through HTTP on a real gateway, each shown to be blocked.
 * - `ipIn` with an IPv4-mapped IPv6 range matches the IPv4 addresses it denotes (a range is read as an address is);
 * - `emailIn` compares the canonical address: case, `+tag`, Gmail's dots;
 * - `emailDomainIn` matches subdomains, and a domain written with its trailing dot;
 * - an address whose domain ends in a dot is refused as invalid by every door that takes an e-mail, in the
 *   error shape of that door's route.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardBody, cardEnding } from '../cards/cards.js';
import { createLink, createSession, PAYER, sessionInput } from '../checkout/fixtures.js';
import { recipientInput } from '../recipients/fixtures.js';
import { CUSTOMER, type SaleBody, saleInput } from '../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { createOperator, type TestOperator } from '../support/operators.js';
import { startServer, type TestServer } from '../support/server.js';

type Sale = SaleBody & { refusalReason?: { code: string }; risk?: { decision: string; ruleName?: string } };

let server: TestServer;
let merchant: TestMerchant;
let risk: TestOperator;
let admin: TestOperator;

beforeAll(async () => {
  server = await startServer({
    workers: false,
    env: { TRUST_PROXY: '127.0.0.1,::1,::ffff:127.0.0.1', SIGNUP: 'on' },
  });
  merchant = await createMerchant(server);
  risk = await createOperator(server, 'risk');
  admin = await createOperator(server, 'admin');
});
afterAll(() => server?.close());

const rules = () => `${server.url}/api/ops/risk-rules`;

async function withRule<T>(
  when: Record<string, unknown>,
  fn: (rule: { id: number; when: Record<string, string[]> }) => Promise<T>,
): Promise<T> {
  const made = await call<{ id: number; when: Record<string, string[]> }>('POST', rules(), {
    headers: risk.ops,
    body: { name: 'Lista de bloqueio', when, action: 'block' },
  });
  expect(made.status, made.text).toBe(201);
  try {
    return await fn(made.body);
  } finally {
    expect((await call('DELETE', `${rules()}/${made.body.id}`, { headers: risk.ops })).status).toBe(204);
  }
}

/** A card typed from `ip` (the tokenization's address is the sale's), charged by the merchant's server. */
async function cardSaleFrom(ip: string): Promise<Sale> {
  const token = await call<{ token: string }>('POST', `${server.url}/api/cards/tokens`, {
    headers: { 'x-api-public-key': merchant.publicKey, 'x-forwarded-for': ip },
    body: cardBody(cardEnding('0')),
  });
  expect(token.status, token.text).toBe(201);
  const sale = await call<Sale>('POST', `${server.url}/api/transactions`, {
    headers: merchant.keys,
    body: saleInput({ paymentMethod: 'CREDIT_CARD', card: { token: token.body.token } }),
  });
  expect(sale.status, sale.text).toBe(201);
  return sale.body;
}

const pixSaleFor = (email: string) =>
  call<Sale>('POST', `${server.url}/api/transactions`, {
    headers: merchant.keys,
    body: saleInput({ customer: { ...CUSTOMER, email } }),
  });

async function refusal(email: string): Promise<string | null> {
  const res = await pixSaleFor(email);
  expect(res.status, `${email}: ${res.text}`).toBe(201);
  return res.body.refusalReason?.code ?? null;
}

describe('risk lists cannot be sidestepped', () => {
  it('ipIn: an IPv4-mapped IPv6 range blocks the IPv4 addresses it denotes', async () => {
    await withRule({ ipIn: ['::ffff:127.0.0.16/126'] }, async (rule) => {
      // stored as the range it is
      expect(rule.when.ipIn).toEqual(['127.0.0.16/30']);
      for (const ip of ['127.0.0.16', '127.0.0.17', '::ffff:127.0.0.19']) {
        expect((await cardSaleFrom(ip)).refusalReason?.code, ip).toBe('RISK_BLOCKED');
      }
      for (const ip of ['127.0.0.20', '127.0.0.15']) {
        expect((await cardSaleFrom(ip)).refusalReason?.code, ip).toBeUndefined();
      }
    });
    // a mapped range wider than IPv4 (every mapped address and more) still meets IPv4 addresses
    await withRule({ ipIn: ['::ffff:0:0/95'] }, async () => {
      expect((await cardSaleFrom('198.51.100.23')).refusalReason?.code).toBe('RISK_BLOCKED');
    });
  });

  it('emailIn: the canonical address is compared, so +tags, case and Gmail dots do not get past it', async () => {
    await withRule({ emailIn: ['fraud@example.com', 'Golpista+loja@GoogleMail.com.'] }, async (rule) => {
      expect(rule.when.emailIn).toEqual(['fraud@example.com', 'golpista@gmail.com']);
      for (const email of [
        'fraud@example.com',
        'fraud+1@example.com',
        'FRAUD+promo@Example.COM',
        'golpista@gmail.com',
        'g.o.l.p.i.s.t.a+x@gmail.com',
        'Golpista@googlemail.com',
      ]) {
        expect(await refusal(email), email).toBe('RISK_BLOCKED');
      }
      for (const email of ['fraud1@example.com', 'f.raud@example.com', 'fraud@example.com.br']) {
        expect(await refusal(email), email).toBeNull();
      }
    });
  });

  it('emailDomainIn: subdomains and trailing-dot entries match', async () => {
    await withRule({ emailDomainIn: ['evil.example', 'Golpe.Example.'] }, async (rule) => {
      expect(rule.when.emailDomainIn).toEqual(['evil.example', 'golpe.example']);
      for (const email of [
        'x@evil.example',
        'x@sub.evil.example',
        'x@a.b.EVIL.example',
        'x+y@golpe.example',
      ]) {
        expect(await refusal(email), email).toBe('RISK_BLOCKED');
      }
      for (const email of ['x@notevil.example', 'x@evil.example.com', 'evil.example@other.example']) {
        expect(await refusal(email), email).toBeNull();
      }
    });
  });

  it('an address with a trailing dot in its domain is refused by every door that takes an e-mail', async () => {
    const dotted = `fraud-${randomBytes(4).toString('hex')}@example.com.`;
    const envelope = (res: { status: number; body: unknown }) => {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    };
    const transaction = (res: { status: number; body: unknown }) => {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', message: expect.any(String) });
    };
    // a charge through the API, with no risk rule at all
    transaction(await pixSaleFor(dotted));
    // a customer kept for subscriptions
    transaction(
      await call('POST', `${server.url}/api/customers`, {
        headers: merchant.keys,
        body: { name: 'Cliente', email: dotted, document: CUSTOMER.document },
      }),
    );
    // a recipient of split payments
    transaction(
      await call('POST', `${server.url}/api/recipients`, {
        headers: merchant.keys,
        body: recipientInput({ email: dotted }),
      }),
    );
    // a checkout session's prefilled payer, the payer of a session and of a payment link
    transaction(
      await call('POST', `${server.url}/api/checkout/sessions`, {
        headers: merchant.keys,
        body: sessionInput({ customer: { email: dotted } }),
      }),
    );
    const link = await createLink(server, merchant);
    transaction(
      await call('POST', `${server.url}/api/public/pay/${link.slug}`, { body: { ...PAYER, email: dotted } }),
    );
    const session = await createSession(server, merchant);
    transaction(
      await call('POST', `${server.url}/api/public/checkout/${session.id}`, {
        body: { ...PAYER, email: dotted },
      }),
    );
    // a sign-up, a panel user's invitation, an operator's invitation
    envelope(
      await call('POST', `${server.url}/api/signup`, {
        body: {
          name: 'Loja Nova',
          legalName: 'Loja Nova Comércio Ltda',
          document: '11.222.333/0001-81',
          email: dotted,
          password: 'uma-senha-bem-longa',
          phone: '+55 11 98765-4321',
          address: {
            street: 'Rua das Flores',
            number: '100',
            district: 'Centro',
            city: 'São Paulo',
            state: 'SP',
            zipCode: '01001-000',
          },
        },
      }),
    );
    envelope(
      await call('POST', `${server.url}/api/users/invitations`, {
        headers: merchant.panel,
        body: { email: dotted, name: 'Pessoa', role: 'developer' },
      }),
    );
    envelope(
      await call('POST', `${server.url}/api/ops/operators`, {
        headers: admin.ops,
        body: { email: dotted, role: 'support' },
      }),
    );
    // the same addresses without the dot are taken
    expect((await pixSaleFor(dotted.slice(0, -1))).status).toBe(201);
  });
});
