/**
 * Opening a charge holds no database connection while the processor answers: a slow PSP must not take the
 * pool from every other request (balance reads, cashouts, the PSP's own payment webhooks). The processor here
 * is a gate the test opens; the database and the sales written are real.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/platform/errors/app-error.js';
import { type ChargeInput, createPixSale } from '../../src/sales/charges.js';
import type { PixChargeProcessor } from '../../src/sales/processors/processor.js';
import { createMerchant, type TestMerchant } from '../support/factories.js';
import { startServer, type TestServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { saleInput } from './fixtures.js';

let server: TestServer;
let merchant: TestMerchant;
const db = () => server.runtime.platform.db;
const rules = () => ({ allowPrivateTargets: true, log: server.runtime.platform.log });
/** A charge for the test merchant through `processor`, with `key` as its Idempotency-Key. */
const create = (processor: PixChargeProcessor, key: string | null, input = withItems()) =>
  createPixSale(db(), processor, merchant.accountId, input, key, rules());

beforeAll(async () => {
  server = await startServer({ workers: false });
  merchant = await createMerchant(server);
});
afterAll(() => server?.close());

/** A processor whose charges wait until `open()` (or fail with `fail()`); `calls` counts charges asked. */
function gatedProcessor() {
  let release: (ok: boolean) => void = () => {};
  let gate = new Promise<boolean>((resolve) => {
    release = resolve;
  });
  const state = { calls: 0, released: [] as string[] };
  const processor: PixChargeProcessor = {
    name: 'sandbox',
    async createPixCharge({ saleUuid }) {
      state.calls++;
      if (!(await gate)) throw new Error('PSP answered 503');
      return { externalTransactionId: `gated-${saleUuid}`, brCode: `000201gated${saleUuid}` };
    },
    async refund() {
      return 'pending';
    },
    async releaseExpired(charge) {
      state.released.push(charge.externalTransactionId);
      return true;
    },
  };
  return {
    processor,
    state,
    open: () => release(true),
    fail: () => release(false),
    reset: () => {
      gate = new Promise<boolean>((resolve) => {
        release = resolve;
      });
    },
  };
}

const withItems = (amount = 1000) =>
  saleInput({
    amount,
    items: [{ title: 'Caneca', unitPrice: amount, quantity: 1, tangible: false }],
  }) as unknown as ChargeInput;

/** The merchant's sales. */
async function count(): Promise<number> {
  const [row] = await db().query<{ n: number }>(
    'SELECT count(*)::int AS n FROM sales WHERE account_id = $1',
    [merchant.accountId],
  );
  return row!.n;
}

async function transactionsHeldOpen(): Promise<number> {
  const [row] = await db().query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
  );
  return row!.n;
}

describe('createPixSale while the processor is slow', () => {
  it('holds no connection during the call: 20 charges waiting on the PSP leave the pool free', async () => {
    const gate = gatedProcessor();
    const pending = Array.from({ length: 20 }, (_, i) =>
      create(gate.processor, `slow-${i}`, withItems(1000 + i)),
    );
    await waitUntil(async () => (gate.state.calls === 20 ? true : undefined));
    // more charges waiting than the pool has connections, and none holds one
    expect(await transactionsHeldOpen()).toBe(0);
    const [{ n }] = (await db().query<{ n: number }>('SELECT 1 AS n')) as [{ n: number }];
    expect(n).toBe(1);
    gate.open();
    const created = await Promise.all(pending);
    expect(new Set(created.map((c) => c.sale.id)).size).toBe(20);
    expect(created.every((c) => c.sale.status === 'PENDENTE' && !c.replayed)).toBe(true);
  });

  it('a repeat of a request still opening its charge is refused 409 IN_USE (as for cashouts); after it, replayed', async () => {
    const gate = gatedProcessor();
    const first = create(gate.processor, 'wait-key', withItems());
    await waitUntil(async () => (gate.state.calls === 1 ? true : undefined));
    const second = create(gate.processor, 'wait-key', withItems());
    await expect(second).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    const differs = create(gate.processor, 'wait-key', withItems(2000));
    await expect(differs).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    gate.open();
    const a = await first;
    const b = await create(gate.processor, 'wait-key', withItems());
    expect(gate.state.calls).toBe(1);
    expect(b.sale.id).toBe(a.sale.id);
    expect([a.replayed, b.replayed]).toEqual([false, true]);
  });

  it('a request whose claim was taken over while it stalled stores no second sale for the key', async () => {
    const gate = gatedProcessor();
    const before = await count();
    const stalled = create(gate.processor, 'stall-key', withItems());
    await waitUntil(async () => (gate.state.calls === 1 ? true : undefined));
    // as if it had been waiting past ABANDONED_CLAIM_SECONDS: the next request with the key takes it over
    await db().query(
      `UPDATE sale_idempotency SET expires_at = expires_at - interval '100 seconds'
        WHERE account_id = $1 AND key = 'stall-key'`,
      [merchant.accountId],
    );
    const takeover = create(gate.processor, 'stall-key', withItems());
    await waitUntil(async () => (gate.state.calls === 2 ? true : undefined));
    gate.open();
    const [a, b] = await Promise.allSettled([stalled, takeover]);
    expect(a.status).toBe('rejected');
    expect((a as PromiseRejectedResult).reason).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_USE' });
    expect(b.status).toBe('fulfilled');
    expect(await count()).toBe(before + 1);
    const replay = await create(gate.processor, 'stall-key', withItems());
    expect(replay.replayed).toBe(true);
    expect(replay.sale.id).toBe((b as PromiseFulfilledResult<{ sale: { id: number } }>).value.sale.id);
    // the stalled request's charge has no sale: it is removed at the processor, the stored one is not
    await waitUntil(async () => (gate.state.released.length === 1 ? true : undefined));
    expect(gate.state.released[0]).not.toBe(replay.sale.external_transaction_id);
    expect(gate.state.released[0]).toMatch(/^gated-/);
  });

  it('an amount that does not cover the account’s fee is refused before a charge is opened', async () => {
    const gate = gatedProcessor();
    const poor = await createMerchant(server);
    await db().query('UPDATE accounts SET sale_fee_fixed = 5000 WHERE id = $1', [poor.accountId]);
    const err = await createPixSale(
      db(),
      gate.processor,
      poor.accountId,
      withItems(1000),
      'fee-key',
      rules(),
    ).catch((e: unknown) => e);
    expect((err as AppError).code).toBe('VALIDATION_ERROR');
    expect((err as AppError).message).toMatch(/sale fee/);
    expect(gate.state.calls).toBe(0);
    // the key was not kept: the same key with an amount that covers the fee goes through
    gate.open();
    const made = await createPixSale(
      db(),
      gate.processor,
      poor.accountId,
      withItems(9000),
      'fee-key',
      rules(),
    );
    expect(made.replayed).toBe(false);
  });

  it('a processor failure keeps no sale and gives the key back: the retry opens a new charge', async () => {
    const gate = gatedProcessor();
    const before = await count();
    const first = create(gate.processor, 'fail-key', withItems());
    await waitUntil(async () => (gate.state.calls === 1 ? true : undefined));
    gate.fail();
    const err = await first.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('PROCESSOR_ERROR');
    expect(await count()).toBe(before);
    gate.reset();
    const retry = create(gate.processor, 'fail-key', withItems());
    await waitUntil(async () => (gate.state.calls === 2 ? true : undefined));
    gate.open();
    const made = await retry;
    expect(made.replayed).toBe(false);
    expect(await count()).toBe(before + 1);
  });

  it('refuses a postback target production rules forbid, before asking the processor', async () => {
    const gate = gatedProcessor();
    for (const postbackUrl of [
      'http://127.0.0.1:9/pb',
      'http://10.1.2.3/pb',
      'http://[::1]/pb',
      'http://169.254.169.254/x',
    ]) {
      const err = await createPixSale(
        db(),
        gate.processor,
        merchant.accountId,
        { ...withItems(), postbackUrl },
        null,
        { ...rules(), allowPrivateTargets: false },
      ).catch((e: unknown) => e);
      expect((err as AppError).code, postbackUrl).toBe('VALIDATION_ERROR');
      expect((err as AppError).message).toMatch(/postbackUrl/);
    }
    expect(gate.state.calls).toBe(0);
  });
});
