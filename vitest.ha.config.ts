import { defineConfig } from 'vitest/config';

/**
 * The Patroni cluster's failover, rewind and switchover, directly and through a PgBouncer on each node
 * (test/ha/): `npm test` runs them after the rest, alone (`npm run test:ha` runs only them)
 * (docs/deploy.md, "Patroni, as tested" and "With Patroni"; docs/decisions.md says why). Needs Debian's
 * patroni, etcd-server and pgbouncer besides the local PostgreSQL the other tests use.
 */
export default defineConfig({
  test: {
    include: ['test/ha/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/clean-logs.ts'],
    pool: 'forks',
    // one file at a time: side by side (each with its own etcd and cluster) they took ~60 s instead of ~105 s
    // on a fast machine, but on a machine with a slow commit flush the two clusters' synchronous replication and
    // Patroni's loops starved each other, and both gateways' starts timed out against them
    maxWorkers: 1,
    isolate: false,
    testTimeout: 240_000,
    hookTimeout: 180_000,
    env: { LOG_LEVEL: 'silent', NODE_ENV: 'test' },
    // expect.poll's own default is 1 s: a page or worker that takes longer on a loaded CI machine is slow, not
    // wrong (a proving run failed a withdrawal page's poll so); a poll still fails, 10 s later
    expect: { poll: { timeout: 10_000 } },
  },
});
