/**
 * A gateway process busy opening charges refuses new ones (503, Retry-After: 1, the route's shape, nothing
 * written) while every other request goes on: CHARGE_SHED_UTILIZATION, on a real `gateway serve` process. The
 * share is set near zero here so that any burst passes it; off (the default), no charge is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saleInput } from '../../sales/fixtures.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { type ChildServer, spawnGateway, startServer, type TestServer } from '../../support/server.js';

let server: TestServer;
let busy: ChildServer;
let m: TestMerchant;

beforeAll(async () => {
  server = await startServer({ workers: false });
  m = await createMerchant(server);
  busy = await spawnGateway(['serve', '--no-worker'], {
    ...server.env,
    DATABASE_URL: server.databaseUrl,
    CHARGE_SHED_UTILIZATION: '0.0001',
  });
});
afterAll(async () => {
  await busy?.stop();
  await server?.close();
});

const salesOf = async (accountId: number) =>
  (
    await server.runtime.platform.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sales WHERE account_id = $1',
      [accountId],
    )
  )[0]!.n;

describe('charges shed by a busy process (CHARGE_SHED_UTILIZATION)', () => {
  it('refuses new charges with 503 in shape D and Retry-After while balance reads go on; refused ones write nothing', async () => {
    const before = await salesOf(m.accountId);
    let created = 0;
    const refused: { status: number; body: unknown; headers: Record<string, unknown> }[] = [];
    for (let round = 0; round < 20 && refused.length === 0; round++) {
      const [charges, reads] = await Promise.all([
        Promise.all(
          Array.from({ length: 30 }, () =>
            call('POST', `${busy.url}/api/transactions`, { headers: m.keys, body: saleInput() }),
          ),
        ),
        Promise.all(
          Array.from({ length: 5 }, () => call('GET', `${busy.url}/api/public/balance`, { headers: m.keys })),
        ),
      ]);
      expect(reads.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      for (const c of charges) {
        if (c.status === 201) created++;
        else refused.push(c);
      }
    }
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.status).toBe(503);
      expect(r.body).toEqual({
        message: expect.stringMatching(/busy.*nothing was charged/),
        error: 'SERVICE_UNAVAILABLE',
      });
      expect(r.headers['retry-after']).toBe('1');
    }
    expect(await salesOf(m.accountId)).toBe(before + created);
    // a request without credentials is still told so, busy or not
    expect((await call('POST', `${busy.url}/api/transactions`, { body: saleInput() })).status).toBe(401);
  });

  it('is off by default: a burst of charges is answered 201, each one', async () => {
    const charges = await Promise.all(
      Array.from({ length: 30 }, () =>
        call('POST', `${server.url}/api/transactions`, { headers: m.keys, body: saleInput() }),
      ),
    );
    expect(charges.map((c) => c.status)).toEqual(Array(30).fill(201));
  });
});
