import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/verify.js';
import { transition } from '../../src/withdrawals/state.js';
import { createCashout, lookup, withdrawalEvents } from '../support/cashouts.js';
import { runGateway } from '../support/cli.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import { startServer, type TestServer } from '../support/server.js';

let server: TestServer;
let m: TestMerchant;
const cli = (...args: string[]) => runGateway(args, server.env);
const balance = async () =>
  (await call<Record<string, number>>('GET', `${server.url}/api/public/balance`, { headers: m.keys })).body;

beforeAll(async () => {
  // No workers: withdrawals stay PENDING until the test moves them.
  server = await startServer({ workers: false });
  m = await createMerchant(server);
  await fundMerchant(server.runtime.platform.db, m.accountId, 1_000_000);
});
afterAll(() => server?.close());

describe('gateway cashouts cancel', () => {
  it('cancels a PENDING withdrawal by uuid: funds back to available, CANCELLED, withdrawal.canceled', async () => {
    const created = await createCashout(server.url, m, 300);
    expect(await balance()).toEqual({ available: 970_000, blocked: 30_000, total: 1_000_000, receivable: 0 });
    const out = await cli('cashouts', 'cancel', '--id', created.uuid, '--json');
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ uuid: created.uuid, status: 'CANCELLED' });
    expect(await balance()).toEqual({ available: 1_000_000, blocked: 0, total: 1_000_000, receivable: 0 });
    expect((await lookup(server.url, m, created.uuid)).status).toBe('CANCELLED');
    const events = await withdrawalEvents(server.runtime.platform.db, created.id);
    expect(events.map((e) => e.event_type)).toEqual(['withdrawal.canceled']);
    expect(JSON.parse(events[0]!.webhook_body)).toMatchObject({ status: 'CANCELLED', type: 'WITHDRAWAL' });

    const again = await cli('cashouts', 'cancel', '--id', String(created.id));
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('CANCELLED; only a PENDING withdrawal can be cancelled');
    expect(await balance()).toEqual({ available: 1_000_000, blocked: 0, total: 1_000_000, receivable: 0 });
  });

  it('cancels by numeric id', async () => {
    const created = await createCashout(server.url, m, 100);
    const out = await cli('cashouts', 'cancel', '--id', String(created.id));
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('CANCELLED');
  });

  it('refuses any other status, and a withdrawal whose submission may have reached the provider', async () => {
    const { db } = server.runtime.platform;
    const created = await createCashout(server.url, m, 100);
    await db.query('UPDATE withdrawals SET submitting_at = now() WHERE id = $1', [created.id]);
    const submitting = await cli('cashouts', 'cancel', '--id', created.uuid);
    expect(submitting.code).toBe(1);
    expect(submitting.stderr).toContain('being submitted to the payout provider');
    await db.tx((tx) => transition(tx, created.id, 'submit', 'ext-1'));
    const processing = await cli('cashouts', 'cancel', '--id', created.uuid, '--json');
    expect(processing.code).toBe(1);
    expect(processing.stderr).toContain('PROCESSING');
    expect((await lookup(server.url, m, created.uuid)).status).toBe('PROCESSING');
  });

  it('fails for an unknown id and a malformed id', async () => {
    expect((await cli('cashouts', 'cancel', '--id', '987654')).code).toBe(1);
    expect((await cli('cashouts', 'cancel', '--id', 'abc')).code).toBe(2);
    expect((await verifyLedger(server.runtime.platform.db)).ok).toBe(true);
  });
});
