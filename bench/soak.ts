/**
 * `npm run bench soak`: SOAK_MINUTES (default 30) of mixed traffic on the embedded default, an API process
 * (`serve --no-worker`) and a worker process (`gateway worker`): charges and their payments (PIX, boletos with
 * their PDFs, card sales), disputes opened and accepted, payment links (the payer's page and payment), cashouts, webhooks
 * to a quick, a slow (1.5 s an answer, under the default timeout's slow-lane mark of 2 s) and a failing receiver, panel reads, an events stream and e-mail (invitations and password
 * resets to a local SMTP server). Then it checks what a long run must not show: a fault in either log, resident
 * memory growing after the warm-up, the job queue's tables or the notification backlog beyond their bounds, a
 * ledger that does not verify, an acknowledged fact not delivered exactly once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { openDb } from '../src/platform/db/db.js';
import { startEmbeddedPostgres } from '../src/platform/embedded-postgres/start.js';
import { LogWatch } from '../test/support/log-watch.js';
import { openSse, type SseStream } from '../test/support/sse.js';
import { fundedMerchant } from './lib.js';
import { gitCommit, machine } from './report.js';
import { type Receiver, startReceiver } from './soak/receivers.js';
import { startSmtp } from './soak/smtp.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
/** Memory is compared from the end of the warm-up (a third of the run) to the end. */
const WARMUP_MS = (MINUTES * 60_000) / 3;
const RETENTION_SECONDS = 300;
const SUPERVISE_SECONDS = 30;
const MAIN = path.resolve(import.meta.dirname, '../dist/bundle/main.mjs');

interface Merchant {
  accountId: number;
  email: string;
  keys: Record<string, string>;
  panel: Record<string, string>;
  /** Receivers whose deliveries must all arrive once. */
  delivered: Receiver[];
}

interface Process {
  name: string;
  child: ChildProcess;
  logs: LogWatch;
  output: () => string;
}

const failures: string[] = [];
/** The processes the soak is stopping itself: their exit is no failure. */
const stopping = new Set<ChildProcess>();
const checks: { ok: boolean; what: string }[] = [];
const check = (ok: boolean, what: string) => {
  console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}`);
  checks.push({ ok, what });
  if (!ok) failures.push(what);
};

const counts = {
  charges: 0,
  paid: 0,
  boletos: 0,
  cards: 0,
  disputes: 0,
  linkPayments: 0,
  cashouts: 0,
  panelReads: 0,
  mails: 0,
  non2xx: 0,
  errors: 0,
};
const statuses = new Map<number, number>();
/** Answers other than 2xx by what was asked and what came back, with the first one's message (the report's). */
const unexpected = new Map<string, { n: number; message: string }>();

/** Counts an answer; one other than 2xx is also kept by route (ids made `{id}`), status and error code. */
function tally(method: string, route: string, status: number, body: string): void {
  statuses.set(status, (statuses.get(status) ?? 0) + 1);
  if (status < 300) return;
  counts.non2xx++;
  const shape = route.split('?')[0]!.replace(/\/(?:[0-9a-f]{8}-[0-9a-f-]{27}|\d+)(?=\/|$)/gi, '/{id}');
  const code = /"error"\s*:\s*"([A-Z_]+)"/.exec(body)?.[1];
  const key = `${method} ${shape} → ${status}${code ? ` ${code}` : ''}`;
  const seen = unexpected.get(key);
  if (seen) seen.n++;
  else unexpected.set(key, { n: 1, message: /"message"\s*:\s*"([^"]{0,160})/.exec(body)?.[1] ?? '' });
}

// the payer and items of the boleto, card and dispute traffic
const PAYER = {
  name: 'Maria Silva',
  email: 'maria@example.com',
  document: '52998224725',
  phone: '5511987654321',
  address: {
    street: 'Rua A',
    number: '1',
    district: 'Centro',
    city: 'São Paulo',
    state: 'SP',
    zipCode: '01001000',
  },
};
const ITEMS = [{ title: 'Curso online', unitPrice: 10000, quantity: 1, tangible: false }];

const dataDir = mkdtempSync(path.join(tmpdir(), 'gw-soak-'));
const smtp = await startSmtp();
const quick = await startReceiver(0);
const slow = await startReceiver(1500);
const failing = await startReceiver(0, 500);
const env = {
  ...process.env,
  DATABASE_URL: '',
  DATA_DIR: dataDir,
  NODE_ENV: 'test',
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  SMTP_URL: smtp.url,
  JOB_RETENTION_SECONDS: String(RETENTION_SECONDS),
  JOB_SUPERVISE_INTERVAL_SECONDS: String(SUPERVISE_SECONDS),
  WEBHOOK_RETRY_DELAYS_MS: '5000,30000',
  RATE_LIMIT_PER_KEY: '0',
  RATE_LIMIT_LOGIN_PER_IP: '0',
  // every request of the soak comes from one address, and its card traffic is a merchant's, not an attack
  RATE_LIMIT_CHECKOUT_PER_IP: '0',
  RATE_LIMIT_PUBLIC_KEY: '0',
  RATE_LIMIT_PUBLIC_KEY_PER_IP: '0',
  // a boleto's PDF every 2 s is the default limit's exact rate (30 a minute): its jitter made a few 429s a run
  RATE_LIMIT_BOLETO_PDF_PER_IP: '0',
  RISK_CARD_ATTEMPTS_PER_IP: '0',
  RISK_CARD_ATTEMPTS_PER_CARD: '0',
};

const api = await start(
  'api',
  ['serve', '--no-worker'],
  /"url":"(http:\/\/[^"]+)","msg":"gateway listening"/,
);
const worker = await start('worker', ['worker'], /"msg":"workers started"/);
const url = api.url;
const embedded = await startEmbeddedPostgres(dataDir, () => undefined); // found running
embedded.releaseStartLock();
const db = openDb({ databaseUrl: embedded.url, poolMax: 4 });

const merchants = [
  await merchant([quick], [quick.url]),
  await merchant([quick], [quick.url]),
  await merchant([slow], [slow.url]),
  await merchant([quick], [quick.url, failing.url]),
];
const streams: SseStream[] = [await openSse(`${url}/api/events/stream`, merchants[0]!.keys)];

console.log(
  `soak: ${MINUTES} min on the embedded default (API pid ${api.child.pid}, worker pid ${worker.child.pid}), data in ${dataDir}`,
);
const started = Date.now();
const until = started + MINUTES * 60_000;
const samples: {
  at: number;
  api: number;
  worker: number;
  jobs: number;
  attempts: number;
  /** Open file descriptors of each process; the server's connections from the gateway's processes. */
  apiFds: number;
  workerFds: number;
  connections: number;
}[] = [];
// the payment link whose page and payments the soak exercises (merchants[1]'s)
const link = await call('POST', '/api/payment-links', merchants[1]!.keys, {
  title: 'Curso de fotografia',
  amountCents: 19900,
  methods: ['PIX'],
});
if (link.status !== 201)
  throw new Error(`payment link not created: ${link.status} ${JSON.stringify(link.json)}`);
const slug = (link.json as { slug: string }).slug;

const sampler = (async () => {
  while (Date.now() < until) {
    const [q] = await db.query<{ jobs: number; attempts: number; connections: number }>(
      `SELECT (SELECT count(*)::int FROM pgboss.job) AS jobs,
              (SELECT count(*)::int FROM notification_attempts) AS attempts,
              (SELECT count(*)::int FROM pg_stat_activity
                WHERE application_name LIKE '%' || $1 || '%' OR application_name LIKE '%' || $2 || '%') AS connections`,
      [String(api.child.pid), String(worker.child.pid)],
    );
    samples.push({
      at: Date.now() - started,
      api: rss(api.child),
      worker: rss(worker.child),
      apiFds: fds(api.child),
      workerFds: fds(worker.child),
      ...q!,
    });
    const last = samples[samples.length - 1]!;
    if (samples.length % 6 === 1) {
      console.log(
        `  ${((Date.now() - started) / 60_000).toFixed(1)} min: RSS api ${mb(last.api)} worker ${mb(last.worker)}, pgboss.job ${last.jobs} rows, ${JSON.stringify(counts)}`,
      );
    }
    await sleep(10_000);
  }
})();

await Promise.all([
  sampler,
  // the slow receiver (1.5 s an answer, 32 at once: ~20/s) gets a merchant that sells less (~13 facts/s)
  ...merchants.map((m) => loop(m.delivered.includes(slow) ? 400 : 40, () => chargeAndPay(m))),
  ...merchants.map((m) => loop(250, () => cashout(m))),
  // the other payment methods and what follows a sale, on one merchant (not the one whose stream is checked)
  loop(2_000, () => boletoWithPdf(merchants[1]!)),
  loop(1_000, () => cardSale(merchants[1]!)),
  loop(20_000, () => disputed(merchants[1]!), 5_000),
  loop(3_000, () => payByLink(merchants[1]!)),
  ...merchants.map((m) => loop(500, () => panelReads(m))),
  ...merchants.map((m, i) => loop(75_000, () => passwordReset(m), i * 15_000)),
  loop(240_000, () => invite(merchants[1]!)),
  loop(120_000, () => reconnectStream(), 120_000),
]);

console.log(`\ntraffic over: ${JSON.stringify(counts)}; statuses ${JSON.stringify([...statuses])}`);
await drain();
await report();
for (const s of streams) s.close();
await stop(api);
await stop(worker);
await db.close();
await embedded.stopIfUnused();
await Promise.all([quick.close(), slow.close(), failing.close(), smtp.close()]);
if (failures.length === 0) rmSync(dataDir, { recursive: true, force: true });
console.log(
  failures.length === 0 ? '\nsoak: every check passed' : `\nsoak: ${failures.length} check(s) failed`,
);
writeResults();
console.log('wrote bench/soak-results.json, bench/soak-results.md');
process.exit(failures.length === 0 ? 0 : 1);

async function start(name: string, args: string[], ready: RegExp): Promise<Process & { url: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs = new LogWatch(name);
  let out = '';
  child.stdout!.on('data', (d) => {
    logs.write(d);
    if (out.length < 1_000_000) out += d;
  });
  child.stderr!.on('data', (d) => process.stderr.write(d));
  const found = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const m = ready.exec(out);
      if (m) resolve(m[1] ?? '');
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}: ${out.slice(-2000)}`)));
  });
  // a process that ends before the soak stops it is a failure, said when it happens with the end of its log
  child.once('exit', (code, signal) => {
    if (stopping.has(child)) return;
    check(false, `${name} ended during the run (exit ${code}, signal ${signal})`);
    console.log(`       its last output: ${out.slice(-3000)}`);
  });
  return { name, child, logs, output: () => out, url: found };
}

async function stop(p: Process): Promise<void> {
  stopping.add(p.child);
  p.child.kill('SIGTERM');
  await once(p.child, 'exit');
}

async function call(
  method: 'GET' | 'POST' | 'PUT',
  route: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  try {
    const res = await request(`${url}${route}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    tally(method, route, res.statusCode, text);
    return {
      status: res.statusCode,
      json: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text,
    };
  } catch (err) {
    counts.errors++;
    if (counts.errors <= 5) console.log(`  ${method} ${route}: ${(err as Error).message}`);
    return { status: 0, json: null };
  }
}

async function merchant(delivered: Receiver[], hooks: string[]): Promise<Merchant> {
  const funded = await fundedMerchant(db);
  const [row] = await db.query<{ email: string }>('SELECT email FROM accounts WHERE id = $1', [
    funded.accountId,
  ]);
  const login = await request(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: row!.email, password: 'bench-password' }),
  });
  const { csrfToken } = (await login.body.json()) as { csrfToken: string };
  const cookie = String(login.headers['set-cookie']).split(';')[0]!;
  const panel = { cookie, 'x-csrf-token': csrfToken };
  const m = { accountId: funded.accountId, email: row!.email, keys: funded.keys, panel, delivered };
  for (const webhookUrl of hooks) {
    const r = await call('POST', '/api/webhook', panel, { webhookUrl, events: ['*'] });
    if (r.status !== 201) throw new Error(`webhook not created: ${r.status} ${JSON.stringify(r.json)}`);
  }
  return m;
}

async function chargeAndPay(m: Merchant): Promise<void> {
  const sale = await call('POST', '/api/transactions', m.keys, {
    amount: 10000,
    paymentMethod: 'PIX',
    customer: {
      name: 'Maria Silva',
      email: 'maria@example.com',
      document: '52998224725',
      phone: '5511987654321',
    },
    items: [{ title: 'Curso online', unitPrice: 10000, quantity: 1, tangible: false }],
  });
  if (sale.status !== 201) return;
  counts.charges++;
  const id = (sale.json as { id: number }).id;
  const paid = await call('POST', `/api/sandbox/sales/${id}/status`, m.keys, { status: 'PAGO' });
  if (paid.status === 200) counts.paid++;
}

async function cashout(m: Merchant): Promise<void> {
  const r = await call(
    'POST',
    '/api/public/cashout',
    { ...m.keys, 'idempotency-key': randomUUID() },
    {
      amount: 500,
      pixKey: '52998224725',
    },
  );
  if (r.status === 201) counts.cashouts++;
}

async function panelReads(m: Merchant): Promise<void> {
  for (const route of [
    '/api/sales?limit=20',
    '/api/withdrawals?limit=20',
    '/api/balance',
    '/api/overview/daily',
  ]) {
    const r = await call('GET', route, m.panel);
    if (r.status === 200) counts.panelReads++;
  }
}

async function passwordReset(m: Merchant): Promise<void> {
  const r = await call('POST', '/api/auth/password-reset', {}, { email: m.email });
  if (r.status === 202) counts.mails++;
}

async function invite(m: Merchant): Promise<void> {
  const r = await call('POST', '/api/users/invitations', m.panel, {
    email: `convite-${randomUUID().slice(0, 8)}@example.com`,
    name: 'Convidada',
    role: 'viewer',
  });
  if (r.status === 201) counts.mails++;
}

/** A boleto issued, its PDF fetched (rendered once, then kept) and it paid. */
async function boletoWithPdf(m: Merchant): Promise<void> {
  const due = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  const sale = await call('POST', '/api/transactions', m.keys, {
    amount: 10000,
    paymentMethod: 'BOLETO',
    customer: PAYER,
    items: ITEMS,
    boleto: { dueDate: due },
  });
  if (sale.status !== 201) return;
  const { id, boleto } = sale.json as { id: number; boleto: { pdfUrl: string } };
  const pdfPath = new URL(boleto.pdfUrl).pathname;
  const pdf = await request(`${url}${pdfPath}`);
  const bytes = Buffer.from(await pdf.body.arrayBuffer());
  tally('GET', pdfPath, pdf.statusCode, pdf.statusCode < 300 ? '' : bytes.toString('utf8'));
  const paid = await call('POST', `/api/sandbox/sales/${id}/status`, m.keys, { status: 'PAGO' });
  if (paid.status === 200) counts.boletos++;
}

/** A card tokenized (the public key alone, as a browser) and charged at the sandbox acquirer. */
async function cardSale(m: Merchant): Promise<void> {
  const token = await call(
    'POST',
    '/api/cards/tokens',
    { 'x-api-public-key': m.keys['x-api-public-key']! },
    {
      number: '4111111111111111',
      holderName: 'MARIA SILVA',
      expMonth: 12,
      expYear: 2035,
      cvv: '123',
    },
  );
  if (token.status !== 201) return;
  const sale = await call('POST', '/api/transactions', m.keys, {
    amount: 10000,
    paymentMethod: 'CREDIT_CARD',
    customer: PAYER,
    items: ITEMS,
    installments: 2,
    card: { token: (token.json as { token: string }).token },
  });
  if (sale.status === 201) counts.cards++;
}

/** A PIX sale paid, a MED opened on it (the sandbox playing the PSP) and the merchant accepting it. */
async function disputed(m: Merchant): Promise<void> {
  const sale = await call('POST', '/api/transactions', m.keys, {
    amount: 10000,
    paymentMethod: 'PIX',
    customer: PAYER,
    items: ITEMS,
  });
  if (sale.status !== 201) return;
  const { uuid } = sale.json as { uuid: string };
  if ((await call('POST', `/api/sandbox/sales/${uuid}/status`, m.keys, { status: 'PAGO' })).status !== 200)
    return;
  const dispute = await call('POST', `/api/sandbox/sales/${uuid}/dispute`, m.keys, {
    kind: 'med',
    reason: 'Pagador relata golpe',
  });
  if (dispute.status !== 201) return;
  const { id } = dispute.json as { id: string };
  const accepted = await call('POST', `/api/disputes/${id}/accept`, m.keys);
  if (accepted.status === 200) counts.disputes++;
}

/** A payer on the link's page (its HTML and its data), paying by PIX; the payment confirmed. */
async function payByLink(m: Merchant): Promise<void> {
  const html = await request(`${url}/pay/${slug}`);
  tally('GET', '/pay/{slug}', html.statusCode, await html.body.text());
  await call('GET', `/api/public/pay/${slug}`, {});
  const paying = await call(
    'POST',
    `/api/public/pay/${slug}`,
    {},
    {
      name: 'Maria Silva',
      email: 'maria@example.com',
      document: '529.982.247-25',
    },
  );
  if (paying.status !== 201) return;
  const { saleId } = paying.json as { saleId: string };
  const paid = await call('POST', `/api/sandbox/sales/${saleId}/status`, m.keys, { status: 'PAGO' });
  if (paid.status === 200) counts.linkPayments++;
}

/** A client that drops its stream now and then and resumes with Last-Event-ID. */
async function reconnectStream(): Promise<void> {
  const current = streams[streams.length - 1]!;
  current.close();
  const seen = streams.flatMap((s) => s.events);
  const last = seen[seen.length - 1]?.id;
  const resume: Record<string, string> = last ? { 'last-event-id': last } : {};
  streams.push(await openSse(`${url}/api/events/stream`, { ...merchants[0]!.keys, ...resume }));
}

/** Runs `fn` every `everyMs` (never two at once) until the end of the run. */
async function loop(everyMs: number, fn: () => Promise<void>, offsetMs = 0): Promise<void> {
  await sleep(offsetMs);
  while (Date.now() < until) {
    const t = Date.now();
    await fn().catch(() => {
      counts.errors++;
    });
    await sleep(Math.max(0, everyMs - (Date.now() - t)));
  }
}

/** Waits (up to 2 minutes) until every fact for a delivered receiver has arrived. */
async function drain(): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if ((await missingDeliveries()).missing === 0) return;
    await sleep(2000);
  }
}

async function missingDeliveries(): Promise<{ facts: number; missing: number; twice: number }> {
  let facts = 0;
  let missing = 0;
  let twice = 0;
  for (const m of merchants) {
    const ids = await db.query<{ id: string }>(
      // what a '*' webhook receives: not the cart, dispute and anticipation facts (webhooks/fanout.ts)
      `SELECT id::text AS id FROM notification_events WHERE account_id = $1 AND event_type NOT LIKE 'cart.%'
          AND event_type NOT LIKE 'dispute.%' AND event_type NOT LIKE 'anticipation.%'`,
      [m.accountId],
    );
    facts += ids.length;
    for (const r of m.delivered) {
      for (const { id } of ids) {
        const n = r.times(id);
        if (n === 0) missing++;
        if (n > 1) twice++;
      }
    }
  }
  return { facts, missing, twice };
}

async function report(): Promise<void> {
  const elapsed = (Date.now() - started) / 60_000;
  console.log(`\nsoak checks after ${elapsed.toFixed(1)} min:`);
  for (const p of [api, worker]) {
    const lines = p.logs.takeUnexpected();
    check(lines.length === 0, `${p.name}: no unexpected fault in its log (${lines.length})`);
    for (const line of lines.slice(0, 10)) console.log(`       ${line.slice(0, 400)}`);
  }
  // the first minutes after the warm-up against the last ones (10 each in a 30-minute run, less in a shorter one)
  const window = Math.min(10 * 60_000, (MINUTES * 60_000 - WARMUP_MS) / 2);
  const first = samples.filter((s) => s.at >= WARMUP_MS && s.at < WARMUP_MS + window);
  const last = samples.filter((s) => s.at >= MINUTES * 60_000 - window);
  const minutes = (window / 60_000).toFixed(0);
  for (const name of ['api', 'worker'] as const) {
    const warm = median(first.map((s) => s[name]));
    const end = median(last.map((s) => s[name]));
    const growth = warm > 0 ? end / warm - 1 : 0;
    check(
      Math.abs(growth) <= 0.05,
      `${name}: RSS ${mb(warm)} in the first ${minutes} min after the warm-up → ${mb(end)} in the last ${minutes} (${(growth * 100).toFixed(1)} %, within 5 %)`,
    );
  }
  for (const [what, of] of [
    ['api: open file descriptors', (s: (typeof samples)[number]) => s.apiFds],
    ['worker: open file descriptors', (s: (typeof samples)[number]) => s.workerFds],
    ["the gateway's connections to PostgreSQL", (s: (typeof samples)[number]) => s.connections],
  ] as const) {
    const before = Math.max(...first.map(of));
    const after = median(last.map(of));
    check(
      after <= before,
      `${what}: at most ${before} in the first ${minutes} min after the warm-up, ${after} in the last (median): no growth`,
    );
  }
  const [jobs] = await db.query<{ total: number; stale: number }>(
    `SELECT count(*)::int AS total,
            count(*) FILTER (WHERE completed_on < now() - make_interval(secs => $1))::int AS stale
       FROM pgboss.job`,
    [RETENTION_SECONDS + 3600],
  );
  const jobPeak = Math.max(...samples.map((s) => s.jobs));
  const lateJobs = samples.filter((s) => s.at >= WARMUP_MS).map((s) => s.jobs);
  check(
    jobs!.stale === 0,
    `pgboss.job: ${jobs!.total} rows at the end (peak ${jobPeak}, after the warm-up ${Math.min(...lateJobs)}–${Math.max(...lateJobs)}); none finished longer ago than the retention and a deletion pass`,
  );
  const [backlog] = await db.query<{ outbox: number; pending: number; events: number; deliveries: number }>(
    `SELECT (SELECT count(*)::int FROM notification_outbox) AS outbox,
            (SELECT count(*)::int FROM notification_deliveries WHERE status = 'PENDING') AS pending,
            (SELECT count(*)::int FROM notification_events) AS events,
            (SELECT count(*)::int FROM notification_deliveries) AS deliveries`,
  );
  check(
    backlog!.outbox === 0,
    `notifications: ${backlog!.events} facts, ${backlog!.deliveries} deliveries, outbox ${backlog!.outbox} unfanned, ${backlog!.pending} deliveries pending (the failing receiver's retries)`,
  );
  const verify = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, [MAIN, 'ledger', 'verify', '--json'], {
      env: { ...env, DATABASE_URL: embedded.url, LOG_LEVEL: 'warn' },
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.on('exit', (code) => resolve({ code, out }));
  });
  check(verify.code === 0, `gateway ledger verify: exit ${verify.code} ${verify.out.trim().slice(0, 200)}`);
  const d = await missingDeliveries();
  check(
    d.missing === 0 && d.twice === 0,
    `every acknowledged fact delivered once to the quick and slow receivers: ${d.facts} facts, ${d.missing} missing, ${d.twice} twice`,
  );
  const streamed = new Set(streams.flatMap((s) => s.events.map((e) => e.id)));
  const [{ n: ofStream }] = (await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM notification_events WHERE account_id = $1
        AND event_type NOT LIKE 'cart.%' AND event_type NOT LIKE 'dispute.%'`,
    [merchants[0]!.accountId],
  )) as [{ n: number }];
  check(
    streamed.size >= ofStream,
    `the events stream, reconnected every 2 minutes with Last-Event-ID, saw ${streamed.size} of ${ofStream} events`,
  );
  check(smtp.received() >= counts.mails, `e-mail: ${smtp.received()} received of ${counts.mails} asked for`);
  check(
    counts.errors === 0 && counts.non2xx === 0,
    `traffic: ${counts.errors} transport errors, ${counts.non2xx} answers other than 2xx; statuses ${JSON.stringify([...statuses])}`,
  );
  for (const [what, { n, message }] of unexpected)
    console.log(`  ${n} × ${what}${message ? `: ${message}` : ''}`);
  console.log(
    `\n  open file descriptors (every 10 s): api ${samples.map((s) => s.apiFds).join(' ')}\n  worker ${samples.map((s) => s.workerFds).join(' ')}\n  connections ${samples.map((s) => s.connections).join(' ')}`,
  );
  console.log(
    `\n  RSS samples (MB, every 10 s): api ${samples.map((s) => Math.round(s.api / 1024)).join(' ')}\n  worker ${samples.map((s) => Math.round(s.worker / 1024)).join(' ')}`,
  );
}

/** bench/soak-results.{json,md}: the checks, the traffic and every sample, with the machine it ran on. */
function writeResults(): void {
  const at = new Date().toISOString();
  const commit = gitCommit();
  const m = machine('PostgreSQL (embedded)');
  writeFileSync(
    path.join(import.meta.dirname, 'soak-results.json'),
    `${JSON.stringify({ at, commit, machine: m, minutes: MINUTES, passed: failures.length === 0, checks, counts, statuses: [...statuses], unexpected: Object.fromEntries(unexpected), samples }, null, 2)}\n`,
  );
  const lines = [
    `# Soak results (${at}, commit ${commit})`,
    '',
    `${MINUTES} minutes on the embedded default. Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, Node ${m.node}; load average at the end ${m.loadAverage.join(' / ')}.`,
    '',
    `Traffic: ${JSON.stringify(counts)}; statuses ${JSON.stringify([...statuses])}.`,
    '',
    ...[...unexpected].map(([what, { n, message }]) => `- ${n} × ${what}${message ? `: ${message}` : ''}`),
    '',
    '| Check | Result |',
    '|---|---|',
    ...checks.map((c) => `| ${c.what.replace(/\|/g, '\\|')} | ${c.ok ? 'ok' : 'FAIL'} |`),
    '',
  ];
  writeFileSync(path.join(import.meta.dirname, 'soak-results.md'), lines.join('\n'));
}

function rss(child: ChildProcess): number {
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function fds(child: ChildProcess): number {
  try {
    return readdirSync(`/proc/${child.pid}/fd`).length;
  } catch {
    return 0;
  }
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function mb(kb: number): string {
  return `${(kb / 1024).toFixed(0)} MB`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
