import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevPsp } from '../../../src/devpsp/server.js';
import { getBalance } from '../../../src/ledger/ledger.js';
import { verifyLedger } from '../../../src/ledger/verify.js';
import { EfiPayoutProvider } from '../../../src/withdrawals/payouts/efi-provider.js';
import { createCashout, type Withdrawal, waitForStatus, withdrawalEvents } from '../../support/cashouts.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { freePort } from '../../support/ports.js';
import { RECEIVER_KEY, startPsp } from '../../support/psp.js';
import { startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';

let psp: DevPsp;
let server: TestServer;
let merchant: TestMerchant;
const db = () => server.runtime.platform.db;

beforeAll(async () => {
  const started = await startPsp();
  psp = started.psp;
  server = await startServer({
    env: { ...started.env(await freePort()), PAYOUT_PROVIDER: 'efi', PAYOUT_TIMEOUT_MS: '1000' },
  });
  merchant = await createMerchant(server);
  await fundMerchant(db(), merchant.accountId, 1_000_000);
});
afterAll(async () => {
  await server?.close();
  await psp?.close();
});

const sendId = (uuid: string) => EfiPayoutProvider.sendId(uuid);
async function emailCashout(amount: number, pixKey: string): Promise<Withdrawal> {
  const res = await call<Withdrawal>('POST', `${server.url}/api/public/cashout`, {
    headers: merchant.keys,
    body: { amount, pixKey, pixKeyType: 'EMAIL' },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
const putsOf = (id: string) => psp.state.log.filter((l) => l === `PUT /v3/gn/pix/${id}`).length;
const sent = (uuid: string) =>
  waitUntil(
    () => psp.state.sends.get(sendId(uuid)),
    15_000,
    () => 'the send',
  );

describe('PAYOUT_PROVIDER=efi against a local PSP over mutual TLS', () => {
  it('cashout → Efí send (the withdrawal uuid as idEnvio) → read back REALIZADO → COMPLETED, ledger exact', async () => {
    const before = await getBalance(db(), merchant.accountId);
    const w = await emailCashout(150, 'destino@example.com');
    const send = await sent(w.uuid);
    expect(send).toMatchObject({
      idEnvio: w.uuid.replace(/-/g, ''),
      pagador: { chave: RECEIVER_KEY },
      favorecido: { chave: 'destino@example.com' },
      status: 'EM_PROCESSAMENTO',
    });
    await waitForStatus(server.url, merchant, w.uuid, 'PROCESSING');
    psp.settleSend(send.idEnvio, 'REALIZADO');
    const done = await waitForStatus(server.url, merchant, w.uuid, 'COMPLETED');
    expect(done.status).toBe('COMPLETED');
    const after = await getBalance(db(), merchant.accountId);
    expect(after.total).toBe(before.total - 15_000);
    expect(after.blocked).toBe(before.blocked);
    expect((await withdrawalEvents(db(), w.id)).map((e) => e.event_type)).toEqual([
      'withdrawal.pending',
      'withdrawal.completed',
    ]);
    expect(putsOf(send.idEnvio)).toBe(1);
    expect((await verifyLedger(db())).ok).toBe(true);
  });

  it('Efí unreachable (no token, connection refused): nothing was sent, so the withdrawal stays PENDING and cancellable', async () => {
    // a gateway of its own whose Efí is a port nobody listens on
    const closed = `https://127.0.0.1:${await freePort()}`;
    const started = await startPsp();
    const cut = await startServer({
      env: {
        ...started.env(await freePort()),
        PAYOUT_PROVIDER: 'efi',
        PAYOUT_TIMEOUT_MS: '1000',
        PIX_API_URL: closed,
        PIX_OAUTH_URL: `${closed}/oauth/token`,
      },
    });
    try {
      cut.logs.expect('payout submission failed; will retry');
      const m = await createMerchant(cut);
      await fundMerchant(cut.runtime.platform.db, m.accountId, 100_000);
      const w = await createCashout(cut.url, m, 150);
      // the payout job tried and failed (pg-boss retries it later)
      await waitUntil(
        async () =>
          (
            await cut.runtime.platform.db.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'payouts.submit' AND (retry_count > 0 OR state = 'failed')`,
            )
          )[0]!.n > 0,
        20_000,
        () => 'a failed payout submission',
      );
      // between tries (each claims it for a moment): PENDING, not claimed, never PROCESSING
      let row: { status: string; submitting: boolean } | undefined;
      await waitUntil(
        async () => {
          [row] = await cut.runtime.platform.db.query<{ status: string; submitting: boolean }>(
            'SELECT status, submitting_at IS NOT NULL AS submitting FROM withdrawals WHERE uuid = $1',
            [w.uuid],
          );
          expect(row!.status).toBe('PENDING');
          return !row!.submitting;
        },
        20_000,
        () => `the withdrawal pending and not claimed: ${JSON.stringify(row)}`,
      );
    } finally {
      await cut.close();
      await started.psp.close();
    }
  });

  it('a send whose answer is lost is not sent twice: it stays PROCESSING and is read back', async () => {
    psp.loseNextSendResponse();
    const w = await createCashout(server.url, merchant, 120);
    const send = await sent(w.uuid);
    await waitForStatus(server.url, merchant, w.uuid, 'PROCESSING');
    psp.settleSend(send.idEnvio, 'REALIZADO');
    await waitForStatus(server.url, merchant, w.uuid, 'COMPLETED');
    expect(putsOf(send.idEnvio)).toBe(1);
  });

  it('a 500 on the send: read back finds nothing, the same idEnvio is sent again, once', async () => {
    psp.failNext('PUT /v3', { status: 500 });
    const w = await createCashout(server.url, merchant, 110);
    await waitForStatus(server.url, merchant, w.uuid, 'PROCESSING');
    const send = await sent(w.uuid);
    expect(putsOf(send.idEnvio)).toBe(2); // the failed one (never recorded at the PSP) and the one that sent
    psp.settleSend(send.idEnvio, 'REALIZADO');
    await waitForStatus(server.url, merchant, w.uuid, 'COMPLETED');
    expect([...psp.state.sends.values()].filter((s) => s.idEnvio === send.idEnvio)).toHaveLength(1);
  });

  it('a 429 (slow down) is not a refusal of the order: the same idEnvio is sent again, once made', async () => {
    psp.failNext('PUT /v3', { status: 429 });
    const w = await createCashout(server.url, merchant, 115);
    await waitForStatus(server.url, merchant, w.uuid, 'PROCESSING');
    const send = await sent(w.uuid);
    expect(putsOf(send.idEnvio)).toBe(2);
    psp.settleSend(send.idEnvio, 'REALIZADO');
    await waitForStatus(server.url, merchant, w.uuid, 'COMPLETED');
    expect([...psp.state.sends.values()].filter((s) => s.idEnvio === send.idEnvio)).toHaveLength(1);
  });

  it('a send refused by Efí, or NAO_REALIZADO, fails the withdrawal and returns the funds', async () => {
    const before = await getBalance(db(), merchant.accountId);
    const refused = await emailCashout(130, 'recusada@example.com');
    const failed = await waitForStatus(server.url, merchant, refused.uuid, 'FAILED');
    expect(failed.status).toBe('FAILED');

    const w = await createCashout(server.url, merchant, 140);
    const send = await sent(w.uuid);
    await waitForStatus(server.url, merchant, w.uuid, 'PROCESSING');
    psp.settleSend(send.idEnvio, 'NAO_REALIZADO');
    await waitForStatus(server.url, merchant, w.uuid, 'FAILED');
    const after = await getBalance(db(), merchant.accountId);
    expect(after).toEqual(before);
    expect((await withdrawalEvents(db(), w.id)).map((e) => e.event_type)).toEqual([
      'withdrawal.pending',
      'withdrawal.rejected',
    ]);
    expect((await verifyLedger(db())).ok).toBe(true);
  });
});
