import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { startServer, type TestServer } from '../support/server.js';
import { countRows, createLink, createSession, PAYER, type PixPaymentBody } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;

type Answer = PixPaymentBody & { error: string; message: string };
const pay = (path: string, body: unknown) =>
  call<Answer>('POST', `${server.url}/api/public${path}`, { body });
const db = () => server.runtime.platform.db;
/** A second payer who types the first one's CPF (and their own name and e-mail). */
const SAME_CPF = { ...PAYER, name: 'João Souza', email: 'joao@example.com' };

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server, 'Loja do Token');
});
afterAll(() => server?.close());

describe("a payer's own charge", () => {
  it('a link: a second payer typing the same CPF gets a charge of their own; the first, with their token, their own again', async () => {
    const link = await createLink(server, merchant);
    const first = await pay(`/pay/${link.slug}`, PAYER);
    expect(first.status, first.text).toBe(201);
    expect(first.body.payerToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const second = await pay(`/pay/${link.slug}`, SAME_CPF);
    expect(second.status, second.text).toBe(201);
    expect(second.body.saleId).not.toBe(first.body.saleId);
    expect(second.body.pixCopyPaste).not.toBe(first.body.pixCopyPaste);
    expect(second.body.payerToken).not.toBe(first.body.payerToken);
    // each payer reloading is shown their own charge, under their own name
    const again = await pay(`/pay/${link.slug}`, { ...PAYER, payerToken: first.body.payerToken });
    expect(again.body.saleId).toBe(first.body.saleId);
    const secondAgain = await pay(`/pay/${link.slug}`, { ...SAME_CPF, payerToken: second.body.payerToken });
    expect(secondAgain.body.saleId).toBe(second.body.saleId);
    const names = await db().query<{ uuid: string; name: string }>(
      `SELECT uuid::text, customer->>'name' AS name FROM sales WHERE payment_link_id = $1 ORDER BY id`,
      [link.id],
    );
    expect(names).toEqual([
      { uuid: first.body.saleId, name: 'Maria Silva' },
      { uuid: second.body.saleId, name: 'João Souza' },
    ]);
    // only the token's hash is kept
    const [stored] = await db().query<{ hash: Buffer }>(
      'SELECT payer_token_hash AS hash FROM sales WHERE uuid = $1',
      [first.body.saleId],
    );
    expect(stored!.hash.length).toBe(32);
    expect(stored!.hash.toString('base64url')).not.toBe(first.body.payerToken);
  });

  it('a session: another payer is never handed the open charge; the same payer with their token is', async () => {
    const session = await createSession(server, merchant);
    const first = await pay(`/checkout/${session.id}`, PAYER);
    expect(first.status, first.text).toBe(201);
    const second = await pay(`/checkout/${session.id}`, SAME_CPF);
    expect(second.status, second.text).toBe(201);
    expect(second.body.saleId).not.toBe(first.body.saleId);
    const again = await pay(`/checkout/${session.id}`, { ...PAYER, payerToken: first.body.payerToken });
    expect(again.body.saleId).toBe(first.body.saleId);
  });

  it('the same token sent at once (two tabs, a script) opens one charge and takes one use, on a link and a session', async () => {
    const payerToken = randomBytes(32).toString('base64url');
    const link = await createLink(server, merchant, { maxUses: 3 });
    const session = await createSession(server, merchant);
    for (const [path, where] of [
      [`/pay/${link.slug}`, ['payment_link_id', link.id]],
      [`/checkout/${session.id}`, ['checkout_session_id', session.id]],
    ] as const) {
      const answers = await Promise.all(Array.from({ length: 6 }, () => pay(path, { ...PAYER, payerToken })));
      for (const a of answers) expect(a.status, a.text).toBe(201);
      const ids = new Set(answers.map((a) => a.body.saleId));
      expect(ids.size, path).toBe(1);
      const stored = await db().query<{ uuid: string }>(
        `SELECT uuid::text FROM sales WHERE ${where[0]} = $1`,
        [where[1]],
      );
      expect(stored.map((r) => r.uuid)).toEqual([...ids]);
    }
    // the link's other two uses are still there for other payers
    for (let i = 0; i < 2; i++) expect((await pay(`/pay/${link.slug}`, SAME_CPF)).status).toBe(201);
    expect((await pay(`/pay/${link.slug}`, SAME_CPF)).status).toBe(410);
  });

  it('a token that is not one the gateway makes is refused (400, nothing opened)', async () => {
    const link = await createLink(server, merchant);
    const before = await countRows(server, 'sales');
    for (const payerToken of ['curto', 'x'.repeat(44), `${'a'.repeat(42)}!`, 42]) {
      const res = await pay(`/pay/${link.slug}`, { ...PAYER, payerToken });
      expect(res.status, String(payerToken)).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
    }
    expect(await countRows(server, 'sales')).toBe(before);
  });
});
