import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { Mailbox } from '../support/mailbox.js';
import { startServer, type TestServer } from '../support/server.js';
import { addTeamUser } from '../support/team.js';

let server: TestServer;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await Mailbox.start();
  server = await startServer({ env: { SMTP_URL: mailbox.url } });
});
afterAll(async () => {
  await server?.close();
  await mailbox?.stop();
});

describe('the confirmation lock (docs/security.md: per account)', () => {
  it("one session's wrong passwords lock every user of the account, not another account", async () => {
    const owner = await createMerchant(server, 'Loja Trava');
    await fundMerchant(server.runtime.platform.db, owner.accountId, 100_000);
    const finance = await addTeamUser(server.url, owner, mailbox, 'finance');
    const elsewhere = await createMerchant(server);
    await fundMerchant(server.runtime.platform.db, elsewhere.accountId, 100_000);
    const withdraw = (panel: Record<string, string>, password: string) =>
      call<Record<string, unknown>>('POST', `${server.url}/api/withdrawals`, {
        headers: panel,
        body: { amount: 150, pixKey: '52998224725', password },
      });

    // a stolen finance session guesses: 5 wrong, then it is locked
    for (let i = 0; i < 5; i++) expect((await withdraw(finance.panel, `guess-${i}`)).status).toBe(401);
    expect((await withdraw(finance.panel, 'guess-5')).status).toBe(429);

    // the owner's right password is refused too while the account's lock lasts
    const locked = await withdraw(owner.panel, owner.password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    // another account is not touched
    expect((await withdraw(elsewhere.panel, elsewhere.password)).status).toBe(201);
  });
});
