import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Db, openDb } from '../../../src/platform/db/db.js';
import { setSandboxProvider, withdrawalEvents } from '../../support/cashouts.js';
import { createMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { freshDatabase } from '../../support/pg.js';
import { type ChildServer, spawnGateway, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';

let database: { url: string; drop: () => Promise<void> };
let db: Db;
const children: ChildServer[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  db = await openDb({ databaseUrl: database.url, poolMax: 4 });
});
afterAll(async () => {
  for (const c of children)
    if (c.process.exitCode === null && c.process.signalCode === null) await c.stop('SIGKILL');
  await db?.close();
  await database?.drop();
});

async function serve(): Promise<ChildServer> {
  const child = await spawnGateway(['serve'], {
    DATABASE_URL: database.url,
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-payout-')),
    NODE_ENV: 'test',
  });
  children.push(child);
  return child;
}

it('a payout worker killed between acceptance and submission submits exactly once after restart', async () => {
  await setSandboxProvider(db, 'down'); // the provider is unreachable: the job fails and waits to retry
  const first = await serve();
  const merchant = await createMerchant({
    url: first.url,
    runtime: { platform: { db } },
  } as unknown as TestServer);
  await fundMerchant(db, merchant.accountId, 100_000);

  const res = await call<{ id: number; uuid: string }>('POST', `${first.url}/api/public/cashout`, {
    headers: merchant.keys,
    body: { amount: 250, pixKey: '52998224725' },
  });
  expect(res.status).toBe(201);
  const { id, uuid } = res.body;
  await waitUntil(async () => {
    const [job] = await db.query<{ state: string }>(
      `SELECT state FROM pgboss.job WHERE name = 'payouts.submit' AND data->'withdrawalIds' @> to_jsonb($1::bigint)`,
      [id],
    );
    return job?.state === 'retry';
  });
  expect(await first.stop('SIGKILL')).toBe(null);

  await setSandboxProvider(db, 'up');
  const second = await serve();
  const processing = await waitUntil(async () => {
    const r = await call<{ status: string }>('GET', `${second.url}/api/public/cashout/${uuid}`, {
      headers: merchant.keys,
    });
    return r.body.status === 'PROCESSING' && r.body;
  }, 60_000);
  expect(processing.status).toBe('PROCESSING');

  const payouts = await db.query<{ submissions: number }>(
    'SELECT submissions FROM sandbox_payouts WHERE reference = $1',
    [uuid],
  );
  expect(payouts).toEqual([{ submissions: 1 }]);
  const events = await withdrawalEvents(db, id);
  expect(events.map((e) => e.event_type)).toEqual(['withdrawal.pending']);
  await second.stop();
});
