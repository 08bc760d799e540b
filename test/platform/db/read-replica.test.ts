/**
 * DATABASE_READ_URL: the panel's lists, exports and statement read from a streaming replica while it keeps up;
 * a replica that lags (replay paused) or is down leaves them to the primary, and the balance never leaves it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src/runtime.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { type Cluster, initPrimary, postgresOwnedDir, removeDir } from '../../support/pg-cluster.js';
import { startServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';

let root: string;
let primary: Cluster;
let replica: Cluster;
let runtime: Runtime;
let url: string;
let merchant: TestMerchant;
let dataDir: string;

beforeAll(async () => {
  root = postgresOwnedDir('gw-replica-');
  primary = await initPrimary(root);
  await primary.query('CREATE DATABASE gateway');
  replica = await primary.standby(root, 'replica1');
  dataDir = mkdtempSync(path.join(tmpdir(), 'gw-replica-data-'));
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: primary.url('gateway'),
    DATABASE_READ_URL: replica.url('gateway'),
    DATABASE_READ_MAX_LAG_MS: '300',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  };
  // the gateway on these clusters (startServer's fresh database is not wanted: the database is the cluster's)
  const server = await startServer({ databaseUrl: env.DATABASE_URL, env, workers: false });
  runtime = server.runtime;
  url = server.url;
  merchant = await createMerchant(server);
  await fundMerchant(runtime.platform.db, merchant.accountId, 10_000_000);
}, 120_000);

afterAll(async () => {
  await runtime?.close();
  await primary?.stop('immediate');
  await replica?.stop('immediate');
  removeDir(root);
  removeDir(dataDir);
});

async function newSale(): Promise<string> {
  const r = await call<{ uuid: string }>('POST', `${url}/api/sandbox/sales`, {
    headers: merchant.keys,
    body: {
      amount: 10_000,
      paymentMethod: 'PIX',
      customer: { name: 'Ana', email: 'ana@example.com', document: '52998224725', phone: '11987654321' },
      items: [{ title: 'Curso', unitPrice: 10_000, quantity: 1, tangible: false }],
    },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.uuid;
}

async function panelSales(): Promise<string[]> {
  const r = await call<{ data: { uuid: string }[] }>('GET', `${url}/api/sales?limit=100`, {
    headers: merchant.panel,
  });
  expect(r.status, r.text).toBe(200);
  return r.body.data.map((s) => s.uuid);
}

/** Scans of the sales table on one server: which server answered the panel's list. */
async function salesScans(cluster: Cluster): Promise<number> {
  const [row] = await cluster.query<{ n: string }>(
    `SELECT (coalesce(seq_scan, 0) + coalesce(idx_scan, 0))::text AS n FROM pg_stat_user_tables WHERE relname = 'sales'`,
    'gateway',
  );
  return Number(row?.n ?? 0);
}

describe('a read replica', () => {
  it("serves the panel's sale list while it keeps up", async () => {
    const uuid = await newSale();
    // once it has replayed the sale and the gateway has seen it keep up, the list comes from it
    await waitUntil(
      async () => (await panelSales()).includes(uuid),
      30_000,
      () => 'the sale listed',
    );
    const before = await salesScans(replica);
    for (let i = 0; i < 10; i++) await panelSales();
    await waitUntil(
      async () => (await salesScans(replica)) >= before + 10,
      30_000,
      () => 'scans on the replica',
    );
  });

  it('leaves the lists to the primary while it lags, and the balance is never behind', async () => {
    const balance = async () =>
      (await call<{ available: number }>('GET', `${url}/api/public/balance`, { headers: merchant.keys })).body
        .available;
    const before = await balance();
    await replica.query('SELECT pg_wal_replay_pause()');
    try {
      const uuid = await newSale();
      const paid = await call('POST', `${url}/api/sandbox/sales/${uuid}/status`, {
        headers: merchant.keys,
        body: { status: 'PAGO' },
      });
      expect(paid.status, paid.text).toBe(200);
      // the balance reads the primary: the credit is there at once
      expect(await balance()).toBeGreaterThan(before);
      // the replica has not replayed the sale: it is listed once the gateway sees the replica lag
      await waitUntil(
        async () => (await panelSales()).includes(uuid),
        30_000,
        () => 'the sale listed',
      );
    } finally {
      await replica.query('SELECT pg_wal_replay_resume()');
    }
  });

  it('leaves the lists, exports and statement to the primary while it is down', async () => {
    await replica.stop('immediate');
    const uuid = await newSale();
    expect(await panelSales()).toContain(uuid);
    const csv = await call('GET', `${url}/api/sales/export.csv`, { headers: merchant.panel });
    expect(csv.status).toBe(200);
    expect(csv.text).toContain(uuid);
    const statement = await call('GET', `${url}/api/statement`, { headers: merchant.panel });
    expect(statement.status, statement.text).toBe(200);
    const withdrawals = await call('GET', `${url}/api/withdrawals`, { headers: merchant.panel });
    expect(withdrawals.status, withdrawals.text).toBe(200);
  });
});
