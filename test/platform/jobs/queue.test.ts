/**
 * The job queue works a backlog through: jobs sent together (one NOTIFY's worth, coalesced while the workers
 * were busy) are all worked at once, not a job per worker each time the queue polls.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type Db, openDb } from '../../../src/platform/db/db.js';
import { Queue } from '../../../src/platform/jobs/queue.js';
import { createLogger } from '../../../src/platform/observability/logger.js';
import { freshDatabase } from '../../support/pg.js';
import { waitUntil } from '../../support/wait.js';

let database: { url: string; drop: () => Promise<void> };
let db: Db;

beforeAll(async () => {
  database = await freshDatabase();
  db = openDb({ databaseUrl: database.url });
});
afterAll(async () => {
  await db?.close();
  await database?.drop();
});

describe('a backlog of jobs', () => {
  it.each([
    { batchSize: 1, localConcurrency: 2 },
    { batchSize: 4, localConcurrency: 1 },
  ])(
    'is worked through at once, batch after batch (batchSize $batchSize, $localConcurrency at a time), with no poll between',
    async ({ batchSize, localConcurrency }) => {
      const worked: number[] = [];
      let inHand = 0;
      let most = 0;
      const base = batchSize * 1000;
      // a queue of its own: no loop of another case takes these jobs
      const queue = await Queue.start(db, createLogger('silent'), null);
      onTestFinished(() => queue.stop());
      // an hour between polls: only a NOTIFY, or the loop's own "fetch again", fetches
      await queue.work('mail.send', { batchSize, localConcurrency, pollSeconds: 3600 }, async (jobs) => {
        inHand += 1;
        most = Math.max(most, inHand);
        // a job that takes a moment, so the NOTIFYs of the backlog all arrive while the loops are busy
        await new Promise((r) => setTimeout(r, 20));
        worked.push(...jobs.map((j) => j.data.messageId));
        inHand -= 1;
      });
      await db.tx(async (tx) => {
        for (let i = 0; i < 30; i++) await queue.send(tx, 'mail.send', { messageId: base + i });
      });
      await waitUntil(
        () => worked.length >= 30,
        30_000,
        () => `the 30 jobs worked: ${worked.length} were`,
      );
      expect([...worked].sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => base + i));
      expect(most).toBeLessThanOrEqual(localConcurrency);
    },
  );
});
