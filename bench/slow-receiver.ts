/**
 * Diagnostics (not a case of `npm run bench`): one merchant whose only webhook answers after SLOW_MS, fed
 * SLOW_RATE sale.paid facts a second for SLOW_SECONDS (more than the 8-at-a-time host slots take), then left to
 * drain. Prints lateness (fact → first arrival) percentiles and order inversions: deliveries that arrived
 * after a delivery of a fact made INVERSION_S or more seconds later. SLOW_DEAD=1 gives the same merchant a
 * second webhook to a host that accepts connections and never answers.
 */
import { createServer } from 'node:http';
import { CredentialService } from '../src/auth/credentials.js';
import { seedSales } from './cases/settlement.js';
import { setupTargets } from './cases/webhooks.js';
import { startBenchServer } from './lib.js';

const SLOW_MS = Number(process.env.SLOW_MS ?? 1500);
const RATE = Number(process.env.SLOW_RATE ?? 8);
const SECONDS = Number(process.env.SLOW_SECONDS ?? 90);
const INVERSION_S = 10;

/** A second webhook of the account, to a server on 127.0.0.2 that reads requests and never answers them. */
async function addDeadWebhook(url: string, accountId: number): Promise<void> {
  const dead = createServer((req) => req.resume());
  await new Promise<void>((r) => dead.listen(0, '127.0.0.2', r));
  dead.unref();
  const [acc] = await server.db.query<{ email: string }>('SELECT email FROM accounts WHERE id = $1', [
    accountId,
  ]);
  const login = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: acc!.email, password: 'bench-password' }),
  });
  const { csrfToken } = (await login.json()) as { csrfToken: string };
  const cookie = String(login.headers.get('set-cookie')).split(';')[0]!;
  const created = await fetch(`${url}/api/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrfToken },
    body: JSON.stringify({
      webhookUrl: `http://127.0.0.2:${(dead.address() as { port: number }).port}/dead`,
      events: ['*'],
    }),
  });
  if (created.status !== 201) throw new Error(`dead webhook: ${created.status} ${await created.text()}`);
}

const arrivals = new Map<string, number>();
const receiver = createServer((req, res) => {
  const id = String(req.headers['x-service-event-id'] ?? req.headers['x-event-id'] ?? '');
  req.resume();
  req.on('end', () => {
    if (!arrivals.has(id)) arrivals.set(id, Date.now());
    setTimeout(() => res.end('ok'), SLOW_MS);
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const port = (receiver.address() as { port: number }).port;

const server = await startBenchServer({
  LOG_LEVEL: 'warn',
  WEBHOOK_RETRY_DELAYS_MS: process.env.WEBHOOK_RETRY_DELAYS_MS ?? '60000,600000',
});
try {
  const [target] = await setupTargets(server, [`http://127.0.0.1:${port}/hook`]);
  if (process.env.SLOW_DEAD === '1') await addDeadWebhook(server.url, target!.accountId);
  const cred = await new CredentialService(server.db).issue(target!.accountId);
  const ids = await seedSales(server.db, target!.accountId, RATE * SECONDS + 10);
  const headers = {
    'x-api-public-key': cred.publicKey,
    'x-api-private-key': cred.privateKey,
    'content-type': 'application/json',
  };
  const started = Date.now();
  let sent = 0;
  while (Date.now() - started < SECONDS * 1000) {
    const due = Math.floor(((Date.now() - started) / 1000) * RATE);
    while (sent < due) {
      const id = ids[sent++];
      void fetch(`${server.url}/api/sandbox/sales/${id}/status`, {
        method: 'POST',
        headers,
        body: '{"status":"PAGO"}',
      });
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const loadEnd = Date.now();
  await new Promise((r) => setTimeout(r, 1000));
  const facts = await server.db.query<{ id: string; at: number }>(
    `SELECT id::text AS id, (extract(epoch FROM created_at) * 1000)::float8 AS at FROM notification_events
      WHERE event_type = 'sale.paid' ORDER BY created_at`,
  );
  while (arrivals.size < facts.length && Date.now() - loadEnd < 600_000)
    await new Promise((r) => setTimeout(r, 500));
  const lates = facts.map((f) => (arrivals.get(f.id) ?? Number.NaN) - f.at).filter((x) => !Number.isNaN(x));
  const sorted = [...lates].sort((a, b) => a - b);
  const pct = (p: number) =>
    Math.round(sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!);
  // inversions: a fact that arrived after some fact made INVERSION_S later had arrived
  let inversions = 0;
  let laterMin = Number.POSITIVE_INFINITY;
  const byTime = [...facts].reverse();
  const arrivedBy: number[] = [];
  let j = 0;
  for (const f of byTime) {
    while (j < byTime.length && byTime[j]!.at >= f.at + INVERSION_S * 1000) {
      laterMin = Math.min(laterMin, arrivals.get(byTime[j]!.id) ?? Number.POSITIVE_INFINITY);
      j++;
    }
    const a = arrivals.get(f.id);
    if (a !== undefined && a > laterMin) inversions++;
    arrivedBy.push(a ?? 0);
  }
  console.log(
    `facts ${facts.length}, delivered ${lates.length}, drained ${((Math.max(...arrivals.values()) - loadEnd) / 1000).toFixed(0)} s after the load; lateness p50 ${pct(50)} p90 ${pct(90)} p99 ${pct(99)} max ${pct(100)} ms; arrived after a fact made ${INVERSION_S} s later: ${inversions}`,
  );
} finally {
  await server.stop();
  receiver.close();
}
