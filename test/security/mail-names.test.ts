import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { Mailbox } from '../support/mailbox.js';
import { startServer, type TestServer } from '../support/server.js';
import { addTeamUser } from '../support/team.js';

/** Names printed into e-mail (users, keys, accounts, links) are plain text: nothing a mail client makes a link of. */
let server: TestServer;
let mailbox: Mailbox;
let owner: TestMerchant;
const db = () => server.runtime.platform.db;

const BYPASSES = [
  'Acesse loja.com',
  'Loja https：//evil',
  'Loja http:/\\evil',
  'ERP\r\nBcc: x@evil.com',
  'ERP www.evil',
];

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SMTP_URL: mailbox.url } });
  owner = await createMerchant(server, 'Loja Nomes');
  await fundMerchant(db(), owner.accountId, 10_000_000);
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

describe('names printed into e-mail', () => {
  it('API key names, user names and payment link titles that a mail client would link are refused (400), nothing stored', async () => {
    const [before] = await db().query<{ keys: number; users: number; links: number }>(
      `SELECT (SELECT count(*)::int FROM api_credentials) AS keys, (SELECT count(*)::int FROM users) AS users,
              (SELECT count(*)::int FROM payment_links) AS links`,
    );
    for (const name of BYPASSES) {
      const key = await call<{ error: { code: string; message: string } }>(
        'POST',
        `${server.url}/api/credentials`,
        {
          headers: owner.panel,
          body: { name },
        },
      );
      expect(key.status, name).toBe(400);
      expect(key.body.error.code).toBe('VALIDATION_ERROR');
      const invite = await call('POST', `${server.url}/api/users/invitations`, {
        headers: owner.panel,
        body: { email: 'novo@example.com', name, role: 'viewer' },
      });
      expect(invite.status, name).toBe(400);
      const link = await call('POST', `${server.url}/api/payment-links`, {
        headers: owner.keys,
        body: { title: name, amountCents: 5000, methods: ['PIX'] },
      });
      expect(link.status, name).toBe(400);
    }
    const [after] = await db().query(
      `SELECT (SELECT count(*)::int FROM api_credentials) AS keys, (SELECT count(*)::int FROM users) AS users,
              (SELECT count(*)::int FROM payment_links) AS links`,
    );
    expect(after).toEqual(before);
    const plain = await call('POST', `${server.url}/api/credentials`, {
      headers: owner.panel,
      body: { name: 'ERP (produção) S.A.' },
    });
    expect(plain.status).toBe(201);
  });

  it('a key name stored before these rules is not printed in the approval e-mail', async () => {
    await call('PUT', `${server.url}/api/settings/withdrawal-approval`, {
      headers: owner.panel,
      body: { thresholdCents: 100_000 },
    });
    const finance = await addTeamUser(server.url, owner, mailbox, 'finance');
    await db().query('UPDATE api_credentials SET name = $2 WHERE public_key = $1', [
      owner.keys['x-api-public-key'],
      'Aprove em evil.com',
    ]);
    const cashout = await call('POST', `${server.url}/api/public/cashout`, {
      headers: owner.keys,
      body: { amount: 1000, pixKey: '52998224725' },
    });
    expect(cashout.status, cashout.text).toBe(201);
    const mail = await mailbox.waitFor(finance.email, /aguardando aprovação/);
    expect(mail.text).toContain('pela integração (uma chave de API)');
    expect(mail.text).not.toContain('evil');
    expect(mail.html ?? '').not.toContain('evil');
  });
});
