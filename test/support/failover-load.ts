import { expect } from 'vitest';
import { call, type Response } from './http.js';
import type { Receiver } from './receiver.js';
import { waitUntil } from './wait.js';

/** One answer a client of the load got, with when it came. */
export interface LoadAnswer {
  route: 'cashout' | 'sale';
  response: Response;
  at: number;
}

/** The gateway under failover and how the checks read the database (retrying while no primary answers). */
export interface LoadTarget {
  url(): string;
  keys(): Record<string, string>;
  accountId(): number;
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Idempotency-Keys are `<prefix>-<n>`. */
  keyPrefix: string;
}

/**
 * Clients of one merchant sending cashouts and sale payments through a database failover, as clients honouring
 * Retry-After do, and the checks of what they were told: every 2xx there once and nothing else, never a 500,
 * every 503 in its route's shape, payouts and deliveries resumed (the failover and Patroni tests).
 */
export class FailoverLoad {
  /** Every answer any client got. */
  readonly answers: LoadAnswer[] = [];
  private nextKey = 0;

  constructor(private readonly target: LoadTarget) {}

  /** Sends until the answer is not 503, as a client honouring Retry-After does (same Idempotency-Key). */
  untilAnswered = async (route: LoadAnswer['route'], send: () => Promise<Response>): Promise<Response> => {
    for (;;) {
      const response = await send();
      this.answers.push({ route, response, at: Date.now() });
      if (response.status !== 503) return response;
      await new Promise((r) => setTimeout(r, Number(response.headers['retry-after']) * 1000));
    }
  };

  cashout = async (): Promise<Response<{ uuid: string }>> => {
    const key = `${this.target.keyPrefix}-${this.nextKey++}`;
    return (await this.untilAnswered('cashout', () =>
      call<{ uuid: string }>('POST', `${this.target.url()}/api/public/cashout`, {
        headers: { ...this.target.keys(), 'idempotency-key': key },
        body: { amount: 100, pixKey: '52998224725' },
      }),
    )) as Response<{ uuid: string }>;
  };

  newSale = async (): Promise<string> => {
    const r = await call<{ uuid: string }>('POST', `${this.target.url()}/api/sandbox/sales`, {
      headers: this.target.keys(),
      body: {
        amount: 10_000,
        paymentMethod: 'PIX',
        customer: { name: 'Ana', email: 'ana@example.com', document: '52998224725', phone: '11987654321' },
        items: [{ title: 'Curso', unitPrice: 10_000, quantity: 1, tangible: false }],
      },
    });
    expect(r.status, r.text).toBe(201);
    return r.body.uuid;
  };

  pay = (uuid: string): Promise<Response> =>
    this.untilAnswered('sale', () =>
      call('POST', `${this.target.url()}/api/sandbox/sales/${uuid}/status`, {
        headers: this.target.keys(),
        body: { status: 'PAGO' },
      }),
    );

  /** Clients alternating cashouts and sale payments until `until()` says stop, each finishing what it began. */
  burst = async (clients: number, sales: string[], until: () => boolean) => {
    const cashouts: string[] = [];
    const paid: string[] = [];
    const others: Response[] = [];
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        for (let i = 0; !until(); i++) {
          const sale = (i + c) % 2 === 0 ? sales.pop() : undefined;
          if (sale) {
            const r = await this.pay(sale);
            if (r.status === 200) paid.push(sale);
            else others.push(r);
          } else {
            const r = await this.cashout();
            if (r.status === 201) cashouts.push(r.body.uuid);
            else others.push(r);
          }
        }
      }),
    );
    return { cashouts, paid, others };
  };

  /** How many answers were 200 or 201 so far. */
  acknowledged = (): number =>
    this.answers.filter((a) => a.response.status === 200 || a.response.status === 201).length;

  /** Every acknowledged withdrawal and payment is there once, and nothing else was written (but `since`). */
  expectExactlyAcknowledged = async (cashouts: string[], paid: string[], since: string[] = []) => {
    const withdrawals = await this.target.query<{ uuid: string }>(
      'SELECT uuid::text AS uuid FROM withdrawals WHERE account_id = $1 AND NOT (uuid::text = ANY($2))',
      [this.target.accountId(), since],
    );
    expect(withdrawals.map((w) => w.uuid).sort()).toEqual([...cashouts].sort());
    const credited = await this.target.query<{ uuid: string; n: number }>(
      `SELECT s.uuid::text AS uuid, count(j.id)::int AS n
         FROM sales s LEFT JOIN journal_entries j ON j.ref_type = 'sale' AND j.ref_id = s.id AND j.kind = 'sale.paid'
        WHERE s.account_id = $1 AND s.status = 'PAGO' AND NOT (s.uuid::text = ANY($2)) GROUP BY s.uuid`,
      [this.target.accountId(), since],
    );
    expect(credited.map((s) => s.uuid).sort()).toEqual([...paid].sort());
    expect(credited.filter((s) => s.n !== 1)).toEqual([]);
  };

  /** Never a 500; every 503 with Retry-After, in its route's shape (the cashout's D, the sandbox's sale routes' A). */
  expectNo500s = () => {
    const failures = this.answers.filter((a) => a.response.status >= 500 && a.response.status !== 503);
    expect(failures.map((a) => `${a.response.status} ${a.response.text}`)).toEqual([]);
    for (const { route, response } of this.answers.filter((a) => a.response.status === 503)) {
      expect(response.headers['retry-after']).toMatch(/^\d+$/);
      const shape =
        route === 'cashout'
          ? { error: 'SERVICE_UNAVAILABLE' }
          : { success: false, error: { code: 'SERVICE_UNAVAILABLE' } };
      expect(response.body, `${route}: ${response.text}`).toMatchObject(shape);
    }
  };

  /** The payout worker (pg-boss jobs) took up again: every accepted withdrawal went to the provider. */
  expectPayoutsResumed = async (timeoutMs = 60_000) => {
    await waitUntil(
      async () => {
        const [row] = await this.target.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM withdrawals WHERE account_id = $1 AND status = 'PENDING'`,
          [this.target.accountId()],
        );
        return row!.n === 0;
      },
      timeoutMs,
      () => 'no withdrawal left PENDING',
    );
  };

  /** Every fact of the merchant reached its webhook receiver. */
  expectEveryFactDelivered = async (hooks: Receiver, timeoutMs = 60_000) => {
    const facts = await this.target.query<{ id: string }>(
      'SELECT id::text AS id FROM notification_events WHERE account_id = $1',
      [this.target.accountId()],
    );
    await waitUntil(
      () => {
        const seen = new Set(hooks.received.map((r) => String(r.headers['x-service-event-id'])));
        return facts.every((f) => seen.has(f.id));
      },
      timeoutMs,
      () => 'every fact delivered',
    );
  };
}
