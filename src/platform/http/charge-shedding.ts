import { performance } from 'node:perf_hooks';
import type { onRequestHookHandler } from 'fastify';
import { chargesShed } from '../observability/metrics.js';
import { HttpError } from './errors.js';
import type { Http } from './types.js';

/** How often the event loop's busy share is read. */
const SAMPLE_MS = 200;
/** When a charge refused by a busy process may be tried again. */
const RETRY_AFTER_SECONDS = 1;

/**
 * A process serves every request with one event loop and one pool of database connections: a burst of charges
 * (each drawing its QR code, building its sale, writing its statements) can keep either busy enough that a
 * balance read or a cashout waits behind them. While the loop was busy more than `maxUtilization` of the last
 * 200 ms (Node's event loop utilization), or a request is waiting for one of the pool's connections
 * (`waiting()`), new charges (routes declaring `moves: 'charge'`) are refused with 503 `SERVICE_UNAVAILABLE`
 * and `Retry-After: 1`, in the route's shape, before anything of theirs is done; every other request goes on.
 * Checked after the route's own doors, so a request without credentials is still 401, and before the body is
 * read, parsed or validated: a refusal is most of what a flood costs the loop (measured at 2,000 charges a
 * second all refused: ~130 us of the process's CPU each here, ~200 us after the body). 0 turns it off.
 */
export function shedChargesWhenBusy(app: Http, maxUtilization: number, waiting: () => number): void {
  if (maxUtilization <= 0) return;
  let last = performance.eventLoopUtilization();
  let busy = false;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    busy = performance.eventLoopUtilization(now, last).utilization > maxUtilization;
    last = now;
  }, SAMPLE_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
  const shed: onRequestHookHandler = (_request, _reply, done) => {
    if (!(busy || waiting() > 0)) return done();
    chargesShed.inc();
    done(chargeShed());
  };
  // on the charge routes alone (an onRequest hook of their own, after the route's), not a check on every request
  app.addHook('onRoute', (route) => {
    if (route.config?.moves !== 'charge') return;
    const own = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [...own, shed];
  });
}

/**
 * A refusal made without a stack trace: a busy process makes thousands a second, none of them a fault whose
 * stack anyone reads (it is logged at debug, without the error), and capturing one cost more than the rest of
 * the refusal's error path together (~10 us of a ~30 us error here).
 */
function chargeShed(): ChargeShed {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new ChargeShed();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** A charge refused by a busy process (logged apart from a lost database: nothing is wrong). */
export class ChargeShed extends HttpError {
  constructor() {
    super(
      'SERVICE_UNAVAILABLE',
      'This server is busy opening other charges: retry in a second (nothing was charged)',
      undefined,
      { 'retry-after': String(RETRY_AFTER_SECONDS) },
    );
  }
}
