import { Type } from 'typebox';
import type { Db, Queryable } from '../db/db.js';
import type { Http } from './types.js';

const HEALTH_SCHEMA = {
  tags: ['operations'],
  summary: 'Liveness and database reachability (for load balancers)',
  response: {
    200: Type.Object({ status: Type.Literal('ok') }),
    503: Type.Object({ status: Type.Literal('unavailable') }, { examples: [{ status: 'unavailable' }] }),
  },
};

const HEALTH_TIMEOUT_MS = 2_000;

/**
 * `GET /health` of every process that listens. A database that does not answer within HEALTH_TIMEOUT_MS
 * (frozen) is down for a probe too: a probe that hangs is read as a dead gateway, not as a dead database.
 * The probe has a connection of its own: a pool busy with a load spike must not make every instance look
 * dead to the balancer at once; a pool that has lost its database (its pooler gone) answers 503 without it, and
 * so does a process whose writes are stalled (its COMMITs waiting for a synchronous standby that is gone),
 * though its reads answer.
 */
export function healthRoute(app: Http, db: Db): void {
  // (behind a pooler, to the server itself: a probe waiting in the pooler's queue during a spike is the same)
  const probe: Queryable = db.withSettings({}, 1, { direct: true });
  app.get('/health', { schema: HEALTH_SCHEMA }, async (_request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no answer')), HEALTH_TIMEOUT_MS);
    });
    try {
      // the pool's own server lost (behind a pooler: the pooler gone, which the direct probe cannot see): this
      // process answers 503 to every request meanwhile, so the balancer must send them elsewhere
      if (!db.available) throw new Error('the pool has lost its database');
      // a server that takes statements but finishes no commit (a synchronous standby gone): every write hangs
      if (db.writesStalled) throw new Error('writes stalled');
      await Promise.race([probe.query('SELECT 1'), late]);
      return { status: 'ok' as const };
    } catch {
      return reply.code(503).send({ status: 'unavailable' as const });
    } finally {
      clearTimeout(timer);
    }
  });
}
