import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // the Patroni cluster's tests run after these, alone (vitest.ha.config.ts; `npm test` runs both)
    // (and, as by default, every node_modules: the Medusa test shop's install is under test/)
    exclude: [...configDefaults.exclude, 'test/ha/**'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/clean-logs.ts'],
    pool: 'forks',
    // three files at a time on the 2-core machines CI runs on: much of a file's time is spent waiting on the
    // processes it started (a worker's heartbeat to lapse, a retry's delay, an SMTP server to come back)
    maxWorkers: 3,
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    env: { LOG_LEVEL: 'silent', NODE_ENV: 'test' },
    // expect.poll's own default is 1 s: a page or worker that takes longer on a loaded CI machine is slow, not
    // wrong (a proving run failed a withdrawal page's poll so); a poll still fails, 10 s later
    expect: { poll: { timeout: 10_000 } },
  },
});
