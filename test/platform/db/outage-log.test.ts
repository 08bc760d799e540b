/**
 * What the on-call reads when the database goes and comes back (docs/operations.md, "The primary is lost"): the
 * moment it is lost, with the reason the server gave, and the moment it is found again, even when it is the
 * same host (a restart), from a real `gateway serve` process whose database stops taking connections.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { expect, it } from 'vitest';
import { admin, freshDatabase } from '../../support/pg.js';
import { spawnGateway } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';

const health = async (url: string) => (await request(`${url}/health`)).statusCode;

it('logs the database lost with the server’s reason, and found again on the same host', async () => {
  const database = await freshDatabase();
  const name = new URL(database.url).pathname.slice(1);
  const gateway = await spawnGateway(['serve', '--no-worker'], {
    DATABASE_URL: database.url,
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'gw-outage-')),
    NODE_ENV: 'test',
  });
  try {
    expect(await health(gateway.url)).toBe(200);
    await admin(async (c) => {
      await c.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
      await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
    });
    await waitUntil(
      async () => (await health(gateway.url)) === 503,
      20_000,
      () => 'health 503',
    );
    // the loss is told once a whole round of the search found no host: the database is let back only then (let
    // back sooner, on a loaded machine the search's first probe may connect, and a search that finds its host at
    // once is a lone connection lost, not told)
    await waitUntil(
      () => /PostgreSQL: no read-write host among/.test(gateway.output()),
      20_000,
      () => `the database lost, in the log:\n${gateway.output()}`,
    );
    await admin((c) => c.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`));
    await waitUntil(
      async () => (await health(gateway.url)) === 200,
      20_000,
      () => 'health 200 again',
    );
    await waitUntil(
      () => /PostgreSQL: now using/.test(gateway.output()),
      5_000,
      () => `the database found again, in the log:\n${gateway.output()}`,
    );
    const log = gateway.output();
    expect(log).toMatch(
      new RegExp(
        `PostgreSQL: no read-write host among [^"]*database \\\\"${name}\\\\" is not currently accepting connections`,
      ),
    );
    expect(log).toMatch(/PostgreSQL: now using \S+ \(after \d+ ms without a read-write host\)/);
    // lost before found
    expect(log.indexOf('PostgreSQL: no read-write host among')).toBeLessThan(
      log.indexOf('PostgreSQL: now using'),
    );
  } finally {
    await gateway.stop();
    await database.drop();
  }
});
