import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { generateCertificates } from '../platform/crypto/dev-certificates.js';

export interface DevAcquirerOptions {
  merchantId?: string;
  merchantKey?: string;
  host?: string;
  port?: number;
  /** Where chargeback notices are POSTed (the gateway's `/api/providers/cielo/notifications`). */
  notificationUrl?: string;
  /** Sent as `X-Notification-Secret` with each notice (the header a merchant registers with Cielo). */
  notificationSecret?: string;
}

/** A chargeback on a payment, as Cielo's query shows it (`Payment.Chargebacks[n]`). */
export interface StoredChargeback {
  Amount: number;
  CaseNumber: string;
  Date: string;
  ReasonCode: string;
  ReasonMessage: string;
  Status: string;
}

/** A card it tokenized, as Cielo shows it back (`GET /1/card/{token}`): the number masked. */
export interface StoredCard {
  CardNumber: string;
  Holder: string;
  ExpirationDate: string;
  Brand: string;
}

/** Cielo's error list. */
type CieloErrors = { Code: number; Message: string }[];

/** A sale it authorized, as Cielo shows it (`GET /1/sales/{PaymentId}`). */
export interface StoredSale {
  MerchantOrderId: string;
  Customer: { Name: string };
  Payment: {
    Type: 'CreditCard' | 'DebitCard';
    Amount: number;
    CapturedAmount?: number;
    VoidedAmount?: number;
    Installments: number;
    Capture: boolean;
    CreditCard?: { CardToken: string; Brand: string; CardNumber: string };
    DebitCard?: { CardToken: string; Brand: string; CardNumber: string };
    PaymentId: string;
    Tid: string;
    ProofOfSale: string;
    AuthorizationCode?: string;
    Status: number;
    ReturnCode: string;
    ReturnMessage: string;
    ReceivedDate: string;
    CapturedDate?: string;
    VoidedDate?: string;
    Chargebacks?: StoredChargeback[];
  };
}

/**
 * A fault a test asks for, on the next request that `match`es: `status` answers it with that status without doing
 * it (Cielo's error list on 4xx, nothing on 5xx); `silent` never answers in time (nothing done; the client gives
 * up); `late` does the work, then answers only after `delayMs` (after the client gave up).
 */
export type Fault =
  | { kind: 'status'; status: number; match?: string }
  | { kind: 'silent'; delayMs: number; match?: string }
  | { kind: 'late'; delayMs: number; match?: string };

/**
 * What the card's last digit asks for, as in Cielo's sandbox: Status, ReturnCode, ReturnMessage. 0, 1, 4, 9
 * authorize; 6 leaves the payment pending (Status 12) until `decide`.
 */
const OUTCOMES: Record<string, { approved: boolean; code: string; message: string }> = {
  '0': { approved: true, code: '4', message: 'Operation Successful' },
  '1': { approved: true, code: '4', message: 'Operation Successful' },
  '4': { approved: true, code: '4', message: 'Operation Successful' },
  '9': { approved: true, code: '4', message: 'Operation Successful' },
  '2': { approved: false, code: '05', message: 'Not Authorized' },
  '3': { approved: false, code: '57', message: 'Card Expired' },
  '5': { approved: false, code: '78', message: 'Blocked Card' },
  '7': { approved: false, code: '77', message: 'Card Canceled' },
  '8': { approved: false, code: '70', message: 'Problems with Creditcard' },
  '6': { approved: false, code: '99', message: 'Time Out' },
};

const BRANDS = ['Visa', 'Master', 'Amex', 'Elo', 'Hipercard', 'Diners', 'Discover', 'JCB', 'Aura'];

/**
 * A local acquirer speaking Cielo's e-commerce API 3.0 as its public documentation describes it, over plain
 * HTTP: sales (see salesRoutes), and `POST /1/card` tokenizes a card (headers MerchantId and MerchantKey; 201 `{CardToken, Links}`, 400 with
 * Cielo's `[{Code, Message}]`), `GET /1/card/{token}` shows it back masked (Cielo serves that at the query URL;
 * here both URLs are this server). Test and try-out tool: it keeps tokens in memory and logs nothing.
 */
export class DevAcquirer {
  readonly merchantId: string;
  readonly merchantKey: string;
  readonly cards = new Map<string, StoredCard>();
  /** Sales by PaymentId. */
  readonly sales = new Map<string, StoredSale>();
  url = '';
  notificationUrl: string | null;
  /** The CA its HTTPS certificate is signed by (PEM): what the gateway trusts for it (CIELO_CA_FILE). */
  readonly ca: string;
  private readonly app: FastifyInstance;
  private readonly faults: Fault[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly options: DevAcquirerOptions = {}) {
    this.merchantId = options.merchantId ?? randomUUID();
    this.merchantKey = options.merchantKey ?? randomBytes(20).toString('base64url');
    this.notificationUrl = options.notificationUrl ?? null;
    const certs = generateCertificates();
    this.ca = certs.ca;
    this.app = Fastify({
      forceCloseConnections: true,
      https: { key: certs.serverKey, cert: certs.serverCert },
    });
    this.routes();
    this.salesRoutes();
  }

  async start(): Promise<string> {
    const host = this.options.host ?? '127.0.0.1';
    await this.app.listen({ host, port: this.options.port ?? 0 });
    const { port } = this.app.server.address() as { port: number };
    this.url = `https://${host}:${port}`;
    return this.url;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    await this.app.close();
  }

  /** The next request is answered with this status (Cielo's error list on 4xx, nothing on 5xx). */
  failNext(status: number): void {
    this.fault({ kind: 'status', status });
  }

  /**
   * A fault for the next request whose `METHOD path` starts with `match` (any request without one), e.g.
   * `{kind: 'late', delayMs: 1000, match: 'POST /1/sales'}`. Faults queue up in order.
   */
  fault(fault: Fault): void {
    this.faults.push(fault);
  }

  /** How many faults still wait for their request (0: each has met one). */
  get faultsWaiting(): number {
    return this.faults.length;
  }

  /** The sales made for an order id (a double charge would show as two). */
  salesOf(merchantOrderId: string): StoredSale[] {
    return [...this.sales.values()].filter((s) => s.MerchantOrderId === merchantOrderId);
  }

  /** Ends a pending payment (Status 12) as the issuer decided it. */
  decide(paymentId: string, approved: boolean): void {
    const sale = this.sales.get(paymentId);
    if (sale?.Payment.Status !== 12) throw new Error(`payment ${paymentId} is not pending`);
    const p = sale.Payment;
    if (!approved) Object.assign(p, { Status: 3, ReturnCode: '05', ReturnMessage: 'Not Authorized' });
    else if (p.Capture) {
      Object.assign(p, { Status: 2, CapturedAmount: p.Amount, CapturedDate: cieloDate(), ReturnCode: '6' });
    } else Object.assign(p, { Status: 1, ReturnCode: '4', ReturnMessage: 'Operation Successful' });
  }

  /**
   * The issuer disputes a captured payment: the chargeback is recorded on it (shown by `GET /1/sales/{id}`) and
   * Cielo's notice `{PaymentId, ChangeType: 7}` is POSTed to the notification URL, if one is set. Answers the
   * chargeback and the status the notification URL answered (null: not sent, or no answer).
   */
  async chargeback(input: {
    paymentId: string;
    amountCents?: number;
    reasonCode?: string;
    reasonMessage?: string;
  }): Promise<{ chargeback: StoredChargeback; notified: number | null }> {
    const sale = this.sales.get(input.paymentId);
    if (sale?.Payment.Status !== 2) throw new Error(`payment ${input.paymentId} is not captured`);
    const p = sale.Payment;
    const captured = p.CapturedAmount ?? p.Amount;
    const amount = input.amountCents ?? captured;
    if (!Number.isInteger(amount) || amount < 1 || amount > captured) {
      throw new Error(`amountCents must be 1 to the captured ${captured}`);
    }
    const chargeback: StoredChargeback = {
      Amount: amount,
      CaseNumber: randomBytes(8).toString('hex').toUpperCase(),
      Date: cieloDate().slice(0, 10),
      ReasonCode: input.reasonCode ?? '4837',
      ReasonMessage: input.reasonMessage ?? 'No Cardholder Authorization',
      Status: 'Received',
    };
    p.Chargebacks = [...(p.Chargebacks ?? []), chargeback];
    return { chargeback, notified: await this.notify(input.paymentId, 7) };
  }

  /** POSTs Cielo's notice `{PaymentId, ChangeType}` to the notification URL: the status it answered, or null. */
  async notify(paymentId: string, changeType: number): Promise<number | null> {
    if (!this.notificationUrl) return null;
    try {
      const res = await fetch(this.notificationUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.options.notificationSecret
            ? { 'x-notification-secret': this.options.notificationSecret }
            : {}),
        },
        body: JSON.stringify({ PaymentId: paymentId, ChangeType: changeType }),
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      return res.status;
    } catch {
      return null;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }

  private takeFault(request: FastifyRequest): Fault | null {
    const line = `${request.method} ${request.url}`;
    const i = this.faults.findIndex((f) => !f.match || line.startsWith(f.match));
    return i < 0 ? null : this.faults.splice(i, 1)[0]!;
  }

  private routes(): void {
    const late = new WeakSet<FastifyRequest>();
    const lateBy = new WeakMap<FastifyRequest, number>();
    this.app.addHook('onRequest', async (request, reply) => {
      const fault = this.takeFault(request);
      if (fault?.kind === 'status') {
        const status = fault.status;
        return reply.code(status).send(status < 500 ? [{ Code: 999, Message: 'Fault asked for' }] : '');
      }
      if (fault?.kind === 'silent') {
        await this.sleep(fault.delayMs);
        return reply.code(504).send('');
      }
      if (fault?.kind === 'late') {
        late.add(request);
        lateBy.set(request, fault.delayMs);
      }
      // the fake's own controls (a person or a test opens a chargeback) take no merchant credentials
      if (request.url.startsWith('/_dev/')) return;
      if (!this.merchantKnown(request))
        return reply.code(401).send([{ Code: 132, Message: 'MerchantKey is invalid' }]);
    });
    this.app.addHook('onSend', async (request) => {
      if (late.has(request)) await this.sleep(lateBy.get(request) ?? 0);
    });

    this.app.post('/1/card', async (request, reply) => {
      const problems = cardProblems(request.body);
      if (problems.length > 0) return reply.code(400).send(problems);
      const body = request.body as Record<string, string>;
      const token = randomUUID();
      this.cards.set(token, {
        CardNumber: `************${body.CardNumber!.slice(-4)}`,
        Holder: body.Holder!,
        ExpirationDate: body.ExpirationDate!,
        Brand: body.Brand!,
      });
      return reply.code(201).send({
        CardToken: token,
        Links: { Method: 'GET', Rel: 'self', Href: `${this.url}/1/card/${token}` },
      });
    });

    this.app.post('/_dev/chargebacks', async (request, reply) => {
      const b = (request.body ?? {}) as Record<string, unknown>;
      const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v.slice(0, 200) : undefined);
      const paymentId = str(b.paymentId);
      if (!paymentId || (b.amountCents !== undefined && typeof b.amountCents !== 'number')) {
        return reply
          .code(400)
          .send({ error: 'paymentId (string) and amountCents? (integer cents) are needed' });
      }
      try {
        const opened = await this.chargeback({
          paymentId,
          ...(typeof b.amountCents === 'number' ? { amountCents: b.amountCents } : {}),
          ...(str(b.reasonCode) ? { reasonCode: str(b.reasonCode)! } : {}),
          ...(str(b.reasonMessage) ? { reasonMessage: str(b.reasonMessage)! } : {}),
        });
        return reply.code(201).send(opened);
      } catch (err) {
        return reply.code(409).send({ error: (err as Error).message });
      }
    });

    this.app.get<{ Params: { token: string } }>('/1/card/:token', async (request, reply) => {
      const card = this.cards.get(request.params.token);
      if (!card) return reply.code(404).send([{ Code: 0, Message: 'Not found' }]);
      return reply.send(card);
    });
  }

  /**
   * Cielo's sales: `POST /1/sales/` authorizes (and captures with `Capture: true`) a CardToken it made, deciding by
   * the card's last digit; `PUT /1/sales/{PaymentId}/capture?amount=` and `/void?amount=`; `GET /1/sales/{id}`
   * and `GET /1/sales?merchantOrderId=` (Cielo serves those at its query URL; here both are this server).
   */
  private salesRoutes(): void {
    this.app.post('/1/sales/', async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const payment = (body.Payment ?? {}) as Record<string, unknown>;
      const problems: CieloErrors = [];
      if (typeof body.MerchantOrderId !== 'string' || body.MerchantOrderId === '') {
        problems.push({ Code: 122, Message: 'MerchantOrderId is required' });
      }
      const type = payment.Type;
      if (type !== 'CreditCard' && type !== 'DebitCard') {
        problems.push({ Code: 118, Message: 'Payment Type is required' });
      }
      if (!Number.isInteger(payment.Amount) || (payment.Amount as number) <= 0) {
        problems.push({ Code: 114, Message: 'Amount is invalid' });
      }
      const installments = payment.Installments ?? 1;
      if (!Number.isInteger(installments) || (installments as number) < 1 || (installments as number) > 12) {
        problems.push({ Code: 115, Message: 'Installments is invalid' });
      }
      const card = (payment[String(type)] ?? {}) as Record<string, unknown>;
      const stored = typeof card.CardToken === 'string' ? this.cards.get(card.CardToken) : undefined;
      if (!stored) problems.push({ Code: 126, Message: 'Credit Card Token is invalid' });
      if (problems.length > 0) return reply.code(400).send(problems);
      const outcome = OUTCOMES[stored!.CardNumber.slice(-1)] ?? OUTCOMES['0']!;
      const capture = payment.Capture === true;
      const amount = payment.Amount as number;
      const status = outcome.code === '99' ? 12 : !outcome.approved ? 3 : capture ? 2 : 1;
      const paymentId = randomUUID();
      const sale: StoredSale = {
        MerchantOrderId: body.MerchantOrderId as string,
        Customer: { Name: String((body.Customer as { Name?: unknown } | undefined)?.Name ?? '') },
        Payment: {
          Type: type as 'CreditCard' | 'DebitCard',
          Amount: amount,
          Installments: installments as number,
          Capture: capture,
          [type as string]: {
            CardToken: card.CardToken as string,
            Brand: stored!.Brand,
            CardNumber: stored!.CardNumber.replace(/^\*+/, '******'),
          },
          PaymentId: paymentId,
          Tid: randomBytes(10).toString('hex'),
          ProofOfSale: String(randomBytes(3).readUIntBE(0, 3)),
          ...(outcome.approved ? { AuthorizationCode: String(randomBytes(3).readUIntBE(0, 3)) } : {}),
          Status: status,
          ReturnCode: status === 2 ? '6' : outcome.code,
          ReturnMessage: outcome.message,
          ReceivedDate: cieloDate(),
          ...(status === 2 ? { CapturedAmount: amount, CapturedDate: cieloDate() } : {}),
        },
      };
      this.sales.set(paymentId, sale);
      return reply.code(201).send(this.withLinks(sale));
    });

    this.app.put<{ Params: { id: string; what: string }; Querystring: { amount?: string } }>(
      '/1/sales/:id/:what',
      async (request, reply) => {
        const sale = this.sales.get(request.params.id);
        if (!sale) return reply.code(404).send([{ Code: 0, Message: 'Not found' }]);
        const p = sale.Payment;
        const what = request.params.what;
        const amount = request.query.amount === undefined ? null : Number(request.query.amount);
        if (amount !== null && (!Number.isInteger(amount) || amount <= 0)) {
          return reply.code(400).send([{ Code: 114, Message: 'Amount is invalid' }]);
        }
        if (what === 'capture') {
          if (p.Status !== 1 || (amount ?? p.Amount) > p.Amount) {
            return reply.code(400).send([{ Code: 308, Message: 'Transaction not available to capture' }]);
          }
          Object.assign(p, {
            Status: 2,
            CapturedAmount: amount ?? p.Amount,
            CapturedDate: cieloDate(),
            ReturnCode: '6',
            ReturnMessage: 'Operation Successful',
          });
        } else if (what === 'void') {
          const voidable = p.Status === 2 ? (p.CapturedAmount ?? p.Amount) : p.Amount;
          if ((p.Status !== 1 && p.Status !== 2) || (amount ?? voidable) > voidable) {
            return reply.code(400).send([{ Code: 309, Message: 'Transaction not available to void' }]);
          }
          const voided = (p.VoidedAmount ?? 0) + (amount ?? voidable);
          p.VoidedAmount = voided;
          if (voided >= voidable) Object.assign(p, { Status: 10, VoidedDate: cieloDate() });
          Object.assign(p, { ReturnCode: '9', ReturnMessage: 'Operation Successful' });
        } else return reply.code(404).send([{ Code: 0, Message: 'Not found' }]);
        return reply.send({
          Status: p.Status,
          ReasonCode: 0,
          ReasonMessage: 'Successful',
          ProviderReturnCode: p.ReturnCode,
          ProviderReturnMessage: p.ReturnMessage,
          ReturnCode: p.ReturnCode,
          ReturnMessage: p.ReturnMessage,
          Links: [{ Method: 'GET', Rel: 'self', Href: `${this.url}/1/sales/${p.PaymentId}` }],
        });
      },
    );

    this.app.get<{ Params: { id: string } }>('/1/sales/:id', async (request, reply) => {
      const sale = this.sales.get(request.params.id);
      if (!sale) return reply.code(404).send([{ Code: 0, Message: 'Not found' }]);
      return reply.send(this.withLinks(sale));
    });

    this.app.get<{ Querystring: { merchantOrderId?: string } }>('/1/sales', async (request, reply) => {
      const id = request.query.merchantOrderId;
      if (!id) return reply.code(400).send([{ Code: 122, Message: 'MerchantOrderId is required' }]);
      const found = this.salesOf(id);
      if (found.length === 0) return reply.code(404).send([]);
      return reply.send({
        ReasonCode: 0,
        ReasonMessage: 'Successful',
        Payments: found.map((s) => ({
          PaymentId: s.Payment.PaymentId,
          ReceveidDate: s.Payment.ReceivedDate,
        })),
      });
    });
  }

  private withLinks(sale: StoredSale) {
    const href = `${this.url}/1/sales/${sale.Payment.PaymentId}`;
    return {
      ...sale,
      Payment: {
        ...sale.Payment,
        Links: [
          { Method: 'GET', Rel: 'self', Href: href },
          { Method: 'PUT', Rel: 'capture', Href: `${href}/capture` },
          { Method: 'PUT', Rel: 'void', Href: `${href}/void` },
        ],
      },
    };
  }

  private merchantKnown(request: FastifyRequest): boolean {
    const same = (given: unknown, expected: string) => {
      if (typeof given !== 'string') return false;
      const a = Buffer.from(given);
      const b = Buffer.from(expected);
      return a.length === b.length && timingSafeEqual(a, b);
    };
    return (
      same(request.headers.merchantid, this.merchantId) && same(request.headers.merchantkey, this.merchantKey)
    );
  }
}

/** Cielo's checks of a card to tokenize, with its codes (the number itself is never repeated). */
function cardProblems(body: unknown): CieloErrors {
  const b = (body ?? {}) as Record<string, unknown>;
  const problems: CieloErrors = [];
  if (typeof b.CustomerName !== 'string' || b.CustomerName === '') {
    problems.push({ Code: 104, Message: 'Customer is required' });
  }
  if (typeof b.CardNumber !== 'string' || !/^\d{13,19}$/.test(b.CardNumber)) {
    problems.push({ Code: 127, Message: 'Card Number is required' });
  }
  if (typeof b.Holder !== 'string' || b.Holder === '' || b.Holder.length > 50) {
    problems.push({ Code: 125, Message: 'Credit Card Holder is required' });
  }
  if (typeof b.ExpirationDate !== 'string' || !/^(0[1-9]|1[0-2])\/\d{4}$/.test(b.ExpirationDate)) {
    problems.push({ Code: 126, Message: 'Credit Card Expiration Date is invalid' });
  }
  if (typeof b.Brand !== 'string' || !BRANDS.includes(b.Brand)) {
    problems.push({ Code: 128, Message: 'Card Brand is invalid' });
  }
  return problems;
}

/** Cielo's dates: "2026-11-25 13:45:12" (no zone). */
function cieloDate(): string {
  return new Date().toISOString().slice(0, 19).replace('T', ' ');
}
