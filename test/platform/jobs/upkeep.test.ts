/**
 * The job queue's upkeep (pg-boss's supervise pass) runs in every long-running process: a job whose worker died
 * is failed once its heartbeat lapses and retried by another process, and finished jobs are deleted once
 * JOB_RETENTION_SECONDS old. Both with real `gateway worker` processes, one of them SIGKILLed mid-job.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createMerchant } from '../../support/factories.js';
import { call } from '../../support/http.js';
import { Mailbox } from '../../support/mailbox.js';
import { type ChildServer, spawnGateway, startServer, type TestServer } from '../../support/server.js';
import { waitUntil } from '../../support/wait.js';

const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

interface JobRow {
  id: string;
  state: string;
  retry_count: number;
}

const mailJob = (db: TestServer['runtime']['platform']['db'], messageId: number) =>
  db
    .query<JobRow>(
      `SELECT id, state, retry_count FROM pgboss.job WHERE name = 'mail.send' AND data->>'messageId' = $1`,
      [String(messageId)],
    )
    .then((rows) => rows[0]);

describe('job queue upkeep', () => {
  it('retries, in another process, a job whose worker was SIGKILLed while holding it; the mail goes out once', async () => {
    const mailbox = await Mailbox.start();
    cleanup.push(() => mailbox.stop());
    const env = { SMTP_URL: mailbox.url, JOB_SUPERVISE_INTERVAL_SECONDS: '1' };
    const api = await startServer({ env, workers: false });
    cleanup.push(() => api.close());
    const workerEnv = { ...api.env, ...env, DATABASE_URL: api.databaseUrl };
    const { db } = api.runtime.platform;
    const owner = await createMerchant(api);

    // the message's row is locked here: the first worker to take its job waits on it, the job active
    const lock = new pg.Client({ connectionString: api.databaseUrl });
    await lock.connect();
    cleanup.push(() => lock.end());
    await lock.query('BEGIN');
    const invited = await call('POST', `${api.url}/api/users/invitations`, {
      headers: owner.panel,
      body: { email: 'held@example.com', name: 'Convidada', role: 'viewer' },
    });
    expect(invited.status).toBe(201);
    const [message] = await db.query<{ id: number }>('SELECT id FROM mail_messages WHERE recipient = $1', [
      'held@example.com',
    ]);
    await lock.query('SELECT id FROM mail_messages WHERE id = $1 FOR UPDATE', [message!.id]);

    const doomed: ChildServer = await spawnGateway(['worker'], workerEnv);
    cleanup.push(() => doomed.stop());
    const held = await waitUntil(async () => {
      const job = await mailJob(db, message!.id);
      return job?.state === 'active' && job;
    }, 30_000);
    expect(held.retry_count).toBe(0);
    await doomed.stop('SIGKILL');
    await lock.query('ROLLBACK');

    // its heartbeat falls silent: the upkeep (of any process) fails the job, and the surviving worker runs it
    const survivor = await spawnGateway(['worker'], workerEnv);
    cleanup.push(() => survivor.stop());
    const done = await waitUntil(async () => {
      const job = await mailJob(db, message!.id);
      return job?.state === 'completed' && job;
    }, 60_000);
    expect(done.id).toBe(held.id);
    expect(done.retry_count).toBe(1);
    await mailbox.waitFor('held@example.com', /Convite/, 10_000);
    expect(mailbox.to('held@example.com')).toHaveLength(1);
    const [row] = await db.query<{ sent_at: Date | null }>(
      'SELECT sent_at FROM mail_messages WHERE id = $1',
      [message!.id],
    );
    expect(row!.sent_at).not.toBeNull();
  }, 120_000);

  it('deletes finished jobs once JOB_RETENTION_SECONDS old, and keeps those still to run', async () => {
    const mailbox = await Mailbox.start();
    cleanup.push(() => mailbox.stop());
    const server = await startServer({
      env: { SMTP_URL: mailbox.url, JOB_SUPERVISE_INTERVAL_SECONDS: '1', JOB_RETENTION_SECONDS: '3' },
    });
    cleanup.push(() => server.close());
    const { db, queue } = server.runtime.platform;
    const owner = await createMerchant(server);
    const invited = await call('POST', `${server.url}/api/users/invitations`, {
      headers: owner.panel,
      body: { email: 'kept-briefly@example.com', name: 'Convidada', role: 'viewer' },
    });
    expect(invited.status).toBe(201);
    const [message] = await db.query<{ id: number }>('SELECT id FROM mail_messages WHERE recipient = $1', [
      'kept-briefly@example.com',
    ]);
    await waitUntil(async () => (await mailJob(db, message!.id))?.state === 'completed', 30_000);
    // a job due in an hour is not finished: it stays
    await db.tx((tx) =>
      queue.send(tx, 'sales.release-reserve', { saleId: 2_000_000_001 }, { startAfterSeconds: 3600 }),
    );
    await waitUntil(async () => (await mailJob(db, message!.id)) === undefined, 30_000);
    const [waiting] = await db.query<{ state: string }>(
      `SELECT state FROM pgboss.job WHERE name = 'sales.release-reserve' AND data->>'saleId' = '2000000001'`,
    );
    expect(waiting?.state).toBe('created');
  }, 90_000);
});
