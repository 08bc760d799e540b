import { execFileSync } from 'node:child_process';
import { openDb } from '../../src/platform/db.js';
import { createLogger } from '../../src/platform/logger.js';
import { migrate } from '../../src/platform/migrate.js';
import { Queue } from '../../src/platform/queue.js';
import { admin, TEMPLATE_DB, TEST_DB_PREFIX, urlFor } from './pg.js';

/** Builds dist/ (tests also spawn real server processes) and prepares a migrated template database. */
export default async function setup(): Promise<() => Promise<void>> {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
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
  const queue = await Queue.start(db, createLogger('silent'));
  await queue.stop();
  await db.close();
  return async () => {
    await admin((c) => c.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`));
  };
}
