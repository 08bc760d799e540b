import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDb } from '../../src/platform/db/db.js';
import { migrate } from '../../src/platform/db/migrate.js';
import { Queue } from '../../src/platform/jobs/queue.js';
import { createLogger } from '../../src/platform/observability/logger.js';
import { admin, dropTestDatabases, TEMPLATE_DB, TEST_DB_PREFIX, urlFor } from './pg.js';

/**
 * Builds dist/ (tests spawn real server processes and load the panel) and prepares a migrated template database.
 * Every temporary folder of the run (data folders with dev secrets, embedded clusters, CLI inputs) is made under
 * one folder of its own, TMPDIR for the test processes and the gateways they spawn, removed at the end.
 */
export default async function setup(): Promise<() => Promise<void>> {
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' }); // the server and the panel
  // made once the build has passed: a failed setup has no teardown to remove it
  const runTmp = mkdtempSync(path.join(tmpdir(), 'gw-tests-'));
  chmodSync(runTmp, 0o755); // the embedded PostgreSQL runs as another user when the tests run as root
  process.env.TMPDIR = runTmp;
  await admin(async (c) => {
    const stale = await c.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE starts_with(datname, $1) OR datname = $2`,
      [TEST_DB_PREFIX, TEMPLATE_DB],
    );
    for (const { datname } of stale.rows) await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  });
  const db = await openDb({ databaseUrl: urlFor(TEMPLATE_DB) });
  await migrate(db);
  const queue = await Queue.start(db, createLogger('silent'), null);
  await queue.stop();
  await db.close();
  // the databases tests are done with, dropped together (freshDatabase says why)
  let reaping = Promise.resolve();
  const reaper = setInterval(() => {
    reaping = reaping.then(() => dropTestDatabases('released')).catch(() => undefined);
  }, 30_000);
  return async () => {
    clearInterval(reaper);
    await reaping;
    await dropTestDatabases('all');
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`));
    rmSync(runTmp, { recursive: true, force: true });
  };
}
