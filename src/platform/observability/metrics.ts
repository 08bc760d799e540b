import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { constantTimeEqual } from '../crypto/secrets.js';
import type { Queryable } from '../db/db.js';
import { AppError } from '../errors/app-error.js';
import { EnvelopeErrorBody } from '../http/error-schemas.js';
import type { Http } from '../http/types.js';

/**
 * The process's Prometheus metrics. Domain counters are incremented in the process that does the work (an
 * API process for a created cashout, a worker for a delivery), so a scrape of every process adds up to the
 * whole; the queue gauges are read from the database at scrape time and are the same on every process.
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const duration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by route, method and status',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  registers: [registry],
});

/** Cashouts by the status they reached (PENDING when accepted, then PROCESSING, COMPLETED, …). */
export const cashouts = new Counter({
  name: 'gateway_cashouts_total',
  help: 'Withdrawals by the status they reached',
  labelNames: ['status'] as const,
  registers: [registry],
});

/** Sales by the status they reached (PENDENTE when created, then PAGO, ESTORNADO, …). */
export const sales = new Counter({
  name: 'gateway_sales_total',
  help: 'Sales by the status they reached',
  labelNames: ['status'] as const,
  registers: [registry],
});

/** Webhook and postback delivery attempts by outcome: delivered, retry (failed, will be retried), failed. */
export const deliveries = new Counter({
  name: 'gateway_webhook_deliveries_total',
  help: 'Notification delivery attempts by outcome',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** How long the payout provider took to answer a submission, by outcome (ok, error). */
export const payoutProviderSeconds = new Histogram({
  name: 'gateway_payout_provider_seconds',
  help: 'Payout provider submission time',
  labelNames: ['outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const rateLimited = new Counter({
  name: 'gateway_rate_limited_total',
  help: 'Requests refused with 429 RATE_LIMITED (rate limits, login lockouts, upload and invitation limits), by route',
  labelNames: ['route'] as const,
  registers: [registry],
});

export const chargesShed = new Counter({
  name: 'gateway_charges_shed_total',
  help: 'New charges refused with 503 while the process was busy (CHARGE_SHED_UTILIZATION)',
  registers: [registry],
});

/** Counts a notification fact as the status change it reports (every sale and withdrawal change records one). */
export function countFact(subjectType: string, body: object): void {
  const status = (body as { status?: unknown }).status;
  if (typeof status !== 'string') return;
  if (subjectType === 'sale') sales.inc({ status });
  else if (subjectType === 'withdrawal') cashouts.inc({ status });
}

/**
 * A counter of the rows a module keeps, by one label, read from the database at scrape time: it counts what
 * any process recorded (an operator's command that exits too), and only what committed. The same on every
 * process: take `max` across them, not `sum`. A failed read leaves the counts as they were.
 */
export function tableCounter(options: {
  name: string;
  help: string;
  label: string;
  read: (q: Queryable) => Promise<{ label: string; count: number }[]>;
}): void {
  new Counter({
    name: options.name,
    help: options.help,
    labelNames: [options.label],
    registers: [registry],
    async collect() {
      if (!gaugeDb) return;
      const rows = await options.read(gaugeDb).catch(() => null);
      if (!rows) return;
      this.reset();
      for (const r of rows) this.inc({ [options.label]: r.label }, r.count);
    },
  });
}

/** What the notification queue gauges show, as the webhooks module reads it from its tables. */
export interface NotificationBacklog {
  /** Facts not yet fanned out, plus deliveries still to be made (first attempts and retries). */
  depth: number;
  /** Age in seconds of the oldest of them. */
  oldest: number;
  /** Age in seconds of the oldest fact not yet fanned out. */
  unfanned: number;
}

/** The database the queue gauges read and how: the latest registered app's (one per process outside tests). */
let gaugeDb: Queryable | undefined;
let backlogReader: ((q: Queryable) => Promise<NotificationBacklog>) | undefined;

function queueGauges(): void {
  type Backlog = NotificationBacklog;
  let last: Promise<Backlog | null> | undefined;
  // the gauges are collected by one query per scrape. A failed read (the database lost) leaves a count as it
  // was, and ages an age by the time since the last read: what was waiting then is older now, and an alert on
  // its age still fires while the database is away
  let known: { backlog: Backlog; at: number } | undefined;
  const read = () => {
    last ??= (gaugeDb && backlogReader ? backlogReader(gaugeDb) : Promise.resolve(null))
      .then(
        (backlog) => {
          if (backlog) known = { backlog, at: Date.now() };
          return backlog;
        },
        () => null,
      )
      .finally(() => setTimeout(() => (last = undefined), 1000).unref());
    return last;
  };
  const gauge = (name: string, help: string, pick: (b: Backlog) => number, age = false) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const r = await read();
        if (r) this.set(pick(r));
        else if (age && known && pick(known.backlog) > 0) {
          this.set(pick(known.backlog) + (Date.now() - known.at) / 1000);
        }
      },
    });
  gauge(
    'gateway_webhook_queue_depth',
    'Notifications waiting: facts not yet fanned out plus pending deliveries',
    (b) => b.depth,
  );
  gauge(
    'gateway_webhook_oldest_pending_seconds',
    'Age of the oldest notification still waiting to be delivered',
    (b) => b.oldest,
    true,
  );
  // a receiver slower than its facts ages the gauge above while the pipeline is fine; this one only ages when
  // facts are not being turned into deliveries at all (no worker running, the database failing)
  gauge(
    'gateway_notification_outbox_oldest_seconds',
    'Age of the oldest notification fact not yet fanned out to its deliveries',
    (b) => b.unfanned,
    true,
  );
}

queueGauges();

// 0 while this process has lost its primary and looks for one (a failover): the pools answer 503 meanwhile
new Gauge({
  name: 'gateway_database_available',
  help: '1 while this process has a writable PostgreSQL, 0 while it looks for one after losing it',
  registers: [registry],
  collect() {
    this.set((gaugeDb as { available?: boolean } | undefined)?.available === false ? 0 : 1);
  },
});

export async function metricsPlugin(
  app: Http,
  opts: {
    token: string | undefined;
    db: Queryable;
    /** The notification backlog's reader (without one the queue gauges stay at 0). */
    readBacklog?: (q: Queryable) => Promise<NotificationBacklog>;
  },
): Promise<void> {
  gaugeDb = opts.db;
  backlogReader = opts.readBacklog;
  // one labelled child per (route, method, status), found by a string key: prom-client's observe with a labels
  // object hashes them on every call. The set is bounded: routes are patterns, not URLs.
  const children = new Map<string, { observe(v: number): void }>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const key = `${route} ${request.method} ${reply.statusCode}`;
    let child = children.get(key);
    if (!child) {
      child = duration.labels({ route, method: request.method, status: reply.statusCode });
      children.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
    done();
  });

  const schema = {
    tags: ['operations'],
    summary: 'Prometheus metrics of this process (bearer METRICS_TOKEN; 404 when unset)',
    response: { 200: { type: 'string' }, 401: EnvelopeErrorBody, 404: EnvelopeErrorBody },
  };
  app.get('/metrics', { schema, config: { errors: ['NOT_FOUND'] } }, async (request, reply) => {
    if (!opts.token) throw new AppError('NOT_FOUND', 'Not found');
    // RFC 9110: the auth scheme is case-insensitive ("bearer" is as good as "Bearer")
    const match = /^bearer +(.*)$/i.exec(request.headers.authorization ?? '');
    if (!constantTimeEqual(match?.[1] ?? '', opts.token))
      throw new AppError('UNAUTHORIZED', 'Bearer token required');
    return reply.header('content-type', registry.contentType).send(await registry.metrics());
  });
}

// Not encapsulated (what fastify-plugin does): the onResponse hook must see every route, not only /metrics.
Object.assign(metricsPlugin, { [Symbol.for('skip-override')]: true });
