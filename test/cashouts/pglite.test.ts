import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/verify.js';
import { loadConfig } from '../../src/platform/config.js';
import { type Runtime, startRuntime } from '../../src/platform/runtime.js';
import { createCashout, waitForStatus, withdrawalEvents } from '../support/cashouts.js';
import { createMerchant } from '../support/factories.js';
import { call } from '../support/http.js';
import { fundMerchant } from '../support/ledger.js';
import type { TestServer } from '../support/server.js';

let runtime: Runtime;
let server: TestServer;

beforeAll(async () => {
  const env = {
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-pgl-')),
  };
  runtime = await startRuntime(loadConfig(env), { http: true, workers: true });
  server = { url: runtime.url!, runtime, databaseUrl: '', env, close: () => runtime.close() };
});
afterAll(() => runtime?.close());

it('runs the whole cashout lifecycle on the embedded database (PGlite)', async () => {
  const { db } = runtime.platform;
  expect(db.kind).toBe('pglite');
  const m = await createMerchant(server);
  await fundMerchant(db, m.accountId, 100_000);
  const results = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      call<{ uuid: string; id: number }>('POST', `${server.url}/api/public/cashout`, {
        headers: { ...m.keys, 'idempotency-key': `k-${i % 11}` },
        body: { amount: 100, pixKey: '52998224725' },
      }),
    ),
  );
  const created = results.filter((r) => r.status === 201);
  expect(new Set(created.map((r) => r.body.uuid)).size).toBe(10);
  expect(results.filter((r) => r.status !== 201).every((r) => r.status === 422 || r.status === 409)).toBe(
    true,
  );

  const one = created[0]!.body;
  await waitForStatus(server.url, m, one.uuid, 'PROCESSING');
  const done = await call('POST', `${server.url}/api/sandbox/cashouts/${one.uuid}/result`, {
    headers: m.keys,
    body: { result: 'COMPLETED' },
  });
  expect(done.status).toBe(200);
  expect((await withdrawalEvents(db, one.id)).map((e) => e.event_type)).toEqual([
    'withdrawal.pending',
    'withdrawal.completed',
  ]);
  const more = await createCashout(server.url, m, 100).catch((e: Error) => e.message);
  expect(String(more)).toContain('INSUFFICIENT_BALANCE');
  expect((await verifyLedger(db)).ok).toBe(true);
});
