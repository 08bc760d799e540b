/**
 * Issue 16, item 7: payouts recover when the provider does, and nothing waits forever. A real server with the
 * sandbox payout provider switched off and on; the operator commands through the real command line.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../../src/ledger/verify.js';
import { createCashout, lookup, setSandboxProvider, waitForStatus } from '../../support/cashouts.js';
import { runGateway } from '../../support/cli.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';

let server: TestServer;
let merchant: TestMerchant;
const db = () => server.runtime.platform.db;
const cli = (args: string[]) =>
  runGateway([...args, '--json'], { DATABASE_URL: server.databaseUrl, DATA_DIR: server.env.DATA_DIR! });

beforeAll(async () => {
  server = await startServer();
  merchant = await createMerchant(server);
  await fundMerchant(db(), merchant.accountId, 1_000_000);
});
afterAll(async () => {
  await setSandboxProvider(db(), 'up').catch(() => undefined);
  await server?.close();
});

/** The furthest any queued submission retry is scheduled from now, in seconds. */
async function furthestRetrySeconds(): Promise<{ retries: number; furthest: number }> {
  const [row] = await db().query<{ retries: number; furthest: number | null }>(
    `SELECT coalesce(max(retry_count), 0)::int AS retries,
            extract(epoch FROM max(start_after) - now())::float AS furthest
       FROM pgboss.job WHERE name = 'payouts.submit' AND state = 'retry'`,
  );
  return { retries: row!.retries, furthest: row!.furthest ?? 0 };
}

describe('a payout provider outage', () => {
  it('retries never wait more than 3 s, however long the outage: pending withdrawals go out as soon as it is back', async () => {
    await setSandboxProvider(db(), 'down');
    const created = await Promise.all(
      [150, 160, 170].map((amount) => createCashout(server.url, merchant, amount)),
    );
    // long enough for doubling retries (1, 2, 4, 8 s …) to have grown past the 3 s cap
    const grown = await waitUntil(
      async () => {
        const r = await furthestRetrySeconds();
        return r.retries >= 4 ? r : undefined;
      },
      60_000,
      () => 'four failed tries',
    );
    expect(grown.furthest).toBeLessThanOrEqual(3.5);
    for (const w of created) expect((await lookup(server.url, merchant, w.id)).status).toBe('PENDING');
    const back = Date.now();
    await setSandboxProvider(db(), 'up');
    for (const w of created) await waitForStatus(server.url, merchant, w.id, 'PROCESSING');
    console.log(`provider back: every pending withdrawal PROCESSING after ${Date.now() - back} ms`);
  });
});

describe('nothing waits forever', () => {
  it('lists a withdrawal awaiting approval as such, beside those waiting for the provider', async () => {
    const careful = await createMerchant(server);
    await fundMerchant(db(), careful.accountId, 100_000);
    const rule = await call('PUT', `${server.url}/api/settings/withdrawal-approval`, {
      headers: careful.panel,
      body: { thresholdCents: 1 },
    });
    expect(rule.status).toBe(200);
    const w = await createCashout(server.url, careful, 150);
    await db().query(`UPDATE withdrawals SET updated_at = now() - interval '10 minutes' WHERE id = $1`, [
      w.id,
    ]);
    const stuck = await cli(['cashouts', 'stuck', '--minutes', '5']);
    expect(stuck.code, stuck.stderr).toBe(0);
    // nothing sent: no provider named
    expect(JSON.parse(stuck.stdout)).toContainEqual(
      expect.objectContaining({ id: w.id, status: 'PENDING', awaitingApproval: true, provider: null }),
    );
    const text = await runGateway(['cashouts', 'stuck', '--minutes', '5'], {
      DATABASE_URL: server.databaseUrl,
      DATA_DIR: server.env.DATA_DIR!,
    });
    expect(text.stdout.split('\n').find((l) => l.includes(w.uuid))).toMatch(
      /PENDING \(awaiting approval\) not sent yet \d+ min$/,
    );
  }, 60_000);

  it('a PENDING withdrawal whose job is gone is found, listed as stuck, and submitted again', async () => {
    await setSandboxProvider(db(), 'down');
    const w = await createCashout(server.url, merchant, 180);
    await waitUntil(async () => (await furthestRetrySeconds()).retries >= 1);
    // the job fails for good (or is lost): only the withdrawal row remains
    await db().query(`DELETE FROM pgboss.job WHERE name = 'payouts.submit'`);
    await db().query(
      `UPDATE withdrawals SET created_at = now() - interval '10 minutes',
                                             updated_at = now() - interval '10 minutes' WHERE id = $1`,
      [w.id],
    );
    const stuck = await cli(['cashouts', 'stuck', '--minutes', '5']);
    expect(stuck.code, stuck.stderr).toBe(0);
    const listed = JSON.parse(stuck.stdout) as { id: number; status: string; submitting: boolean }[];
    expect(listed).toContainEqual(
      expect.objectContaining({ id: w.id, status: 'PENDING', submitting: false }),
    );

    await setSandboxProvider(db(), 'up');
    // the worker's reconciliation pass queues it again (every 15 s): no person needed
    await waitForStatus(server.url, merchant, w.id, 'PROCESSING');
  }, 60_000);

  it('the operator retries a pending withdrawal, or cancels one never sent: funds back, ledger exact', async () => {
    await setSandboxProvider(db(), 'down');
    const a = await createCashout(server.url, merchant, 190);
    const b = await createCashout(server.url, merchant, 200);
    await waitUntil(async () => (await furthestRetrySeconds()).retries >= 1);
    await db().query(`DELETE FROM pgboss.job WHERE name = 'payouts.submit'`);

    const cancel = await cli(['cashouts', 'cancel', '--id', String(b.id)]);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(JSON.parse(cancel.stdout)).toMatchObject({ status: 'CANCELLED' });

    await setSandboxProvider(db(), 'up');
    const retry = await cli(['cashouts', 'retry', '--id', a.uuid]);
    expect(retry.code, retry.stderr).toBe(0);
    expect(JSON.parse(retry.stdout)).toEqual({ id: a.id, queued: true });
    await waitForStatus(server.url, merchant, a.id, 'PROCESSING');
    const again = await cli(['cashouts', 'retry', '--id', String(a.id)]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/PROCESSING/);
    expect((await verifyLedger(db())).ok).toBe(true);
  });
});
