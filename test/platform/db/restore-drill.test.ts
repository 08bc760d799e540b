/**
 * The restore drill of docs/deploy.md (scripts/restore-drill.sh): a base backup plus archived WAL recovered to
 * a timestamp holds every withdrawal committed before it and none after, and its ledger verifies.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Runtime } from '../../../src/runtime.js';
import { createMerchant, type TestMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { fundMerchant } from '../../support/ledger.js';
import { type Cluster, initPrimary, PG_BIN, postgresOwnedDir, removeDir } from '../../support/pg-cluster.js';
import { freePort } from '../../support/ports.js';
import { startServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';

const run = promisify(execFile);
const SCRIPT = path.resolve(import.meta.dirname, '../../../scripts/restore-drill.sh');

let root: string;
let primary: Cluster;
let runtime: Runtime;
let url: string;
let merchant: TestMerchant;
let dataDir: string;
let restoredPort: number;

beforeAll(async () => {
  root = postgresOwnedDir('gw-restore-');
  const archive = path.join(root, 'wal-archive');
  await run('runuser', ['-u', 'postgres', '--', 'mkdir', archive]);
  primary = await initPrimary(root, [
    'archive_mode = on',
    `archive_command = 'test ! -f ${archive}/%f && cp %p ${archive}/%f'`,
  ]);
  await primary.query('CREATE DATABASE gateway');
  dataDir = mkdtempSync(path.join(tmpdir(), 'gw-restore-data-'));
  const env = {
    DATA_DIR: dataDir,
    DATABASE_URL: primary.url('gateway'),
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
  if (restoredPort) {
    await run('runuser', [
      '-u',
      'postgres',
      '--',
      `${PG_BIN}/pg_ctl`,
      '-D',
      path.join(root, 'restored'),
      '-m',
      'immediate',
      'stop',
    ]).catch(() => undefined);
  }
  removeDir(root);
  removeDir(dataDir);
});

async function cashouts(n: number, tag: string): Promise<string[]> {
  const uuids: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = await call<{ uuid: string }>('POST', `${url}/api/public/cashout`, {
      headers: { ...merchant.keys, 'idempotency-key': `${tag}-${i}` },
      body: { amount: 100, pixKey: '52998224725' },
    });
    expect(r.status, r.text).toBe(201);
    uuids.push(r.body.uuid);
  }
  return uuids;
}

it('restores a base backup and its WAL to a timestamp, with a clean ledger', async () => {
  const beforeBackup = await cashouts(3, 'a');
  const backup = path.join(root, 'base');
  await run('runuser', [
    '-u',
    'postgres',
    '--',
    `${PG_BIN}/pg_basebackup`,
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    backup,
    '-X',
    'stream',
    '--checkpoint=fast',
  ]);
  const afterBackup = await cashouts(3, 'b');
  const [{ target }] = (await primary.query<{ target: string }>('SELECT now()::text AS target')) as [
    { target: string },
  ];
  await new Promise((r) => setTimeout(r, 50)); // later commits carry a later timestamp
  const lost = await cashouts(3, 'c');
  // the segment holding them goes to the archive now rather than when it fills
  const [{ wal }] = (await primary.query<{ wal: string }>(
    'SELECT pg_walfile_name(pg_switch_wal()) AS wal',
  )) as [{ wal: string }];
  await waitUntil(async () => {
    const [row] = await primary.query<{ last: string | null }>(
      'SELECT last_archived_wal AS last FROM pg_stat_archiver',
    );
    return row?.last !== null && row!.last! >= wal;
  });

  restoredPort = await freePort();
  const drill = await run(
    SCRIPT,
    [backup, path.join(root, 'wal-archive'), target, path.join(root, 'restored'), String(restoredPort)],
    {
      env: { ...process.env, PG_BIN, KEEP: '1' },
    },
  );
  expect(JSON.parse(drill.stdout)).toMatchObject({ ok: true, problems: [] });

  const restored = new pg.Client({
    connectionString: `postgres://postgres@127.0.0.1:${restoredPort}/gateway`,
  });
  await restored.connect();
  try {
    const { rows } = await restored.query<{ uuid: string }>('SELECT uuid::text AS uuid FROM withdrawals');
    expect(rows.map((r) => r.uuid).sort()).toEqual([...beforeBackup, ...afterBackup].sort());
    expect(lost.some((u) => rows.some((r) => r.uuid === u))).toBe(false);
  } finally {
    await restored.end();
  }
});
