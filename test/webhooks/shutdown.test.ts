import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { DELIVERY_LIMITS } from '../../src/webhooks/workers.js';
import { createMerchant } from '../support/factories.js';
import { recordFact } from '../support/notifications.js';
import { freshDatabase } from '../support/pg.js';
import { startReceiver } from '../support/receiver.js';
import { startServer } from '../support/server.js';
import { waitUntil } from '../support/wait.js';
import { createWebhook } from '../support/webhooks.js';

// long enough that every fact is claimed before the first attempts in flight time out, on a loaded machine too:
// one of them timed out and rescheduled before the last claim, the claimed count never reached FACTS (seen under
// a full suite beside other work); the stop then waits for them this long
const TIMEOUT_MS = 5000;
const IN_FLIGHT = DELIVERY_LIMITS.slowPerHost;
const FACTS = IN_FLIGHT + 12;
const database = await freshDatabase();
afterAll(() => database.drop());

it('a stopping process hands back the attempts it claimed but never started, and writes the outcomes of those in flight', async () => {
  const receiver = await startReceiver();
  receiver.setFallback('hang');
  const server = await startServer({
    databaseUrl: database.url,
    env: { WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_RETRY_DELAYS_MS: '60000,60000' },
  });
  try {
    const m = await createMerchant(server);
    await createWebhook(server, m, `${receiver.url}/hook`, ['sale.paid']);
    for (let i = 0; i < FACTS; i++) await recordFact(server, m.accountId, 'sale.paid');
    // a hanging host's limit in flight (the slow lane's), the other 12 claimed and waiting in this process
    await receiver.waitFor(IN_FLIGHT);
    const { db } = server.runtime.platform;
    await waitUntil(async () => {
      const [r] = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM notification_deliveries WHERE ticket IS NULL AND lease_until IS NOT NULL`,
      );
      return r!.n === FACTS || undefined;
    });
  } finally {
    await server.close();
    await receiver.close();
  }

  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ attempts: number; n: number; due: boolean; leased: boolean }>(
      `SELECT attempts, count(*)::int AS n, bool_and(ticket IS NOT NULL) AS due, bool_or(lease_until IS NOT NULL) AS leased
         FROM notification_deliveries WHERE status = 'PENDING' GROUP BY attempts ORDER BY attempts`,
    );
    // never started: uncounted and due again; timed out in flight: counted, their retry scheduled
    expect(rows).toEqual([
      { attempts: 0, n: 12, due: true, leased: false },
      { attempts: 1, n: IN_FLIGHT, due: true, leased: false },
    ]);
    const logged = await client.query(`SELECT error FROM notification_attempts`);
    expect(logged.rows).toEqual(Array(IN_FLIGHT).fill({ error: `no response within ${TIMEOUT_MS} ms` }));
  } finally {
    await client.end();
  }
});
