import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';

export interface DevAcquirerOptions {
  merchantId?: string;
  merchantKey?: string;
  host?: string;
  port?: number;
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

const BRANDS = ['Visa', 'Master', 'Amex', 'Elo', 'Hipercard', 'Diners', 'Discover', 'JCB', 'Aura'];

/**
 * A local acquirer speaking Cielo's e-commerce API 3.0 as its public documentation describes it, over plain
 * HTTP: `POST /1/card` tokenizes a card (headers MerchantId and MerchantKey; 201 `{CardToken, Links}`, 400 with
 * Cielo's `[{Code, Message}]`), `GET /1/card/{token}` shows it back masked (Cielo serves that at the query URL;
 * here both URLs are this server). Test and try-out tool: it keeps tokens in memory and logs nothing.
 */
export class DevAcquirer {
  readonly merchantId: string;
  readonly merchantKey: string;
  readonly cards = new Map<string, StoredCard>();
  url = '';
  private readonly app: FastifyInstance;
  private nextFault: number | null = null;

  constructor(private readonly options: DevAcquirerOptions = {}) {
    this.merchantId = options.merchantId ?? randomUUID();
    this.merchantKey = options.merchantKey ?? randomBytes(20).toString('base64url');
    this.app = Fastify();
    this.routes();
  }

  async start(): Promise<string> {
    const host = this.options.host ?? '127.0.0.1';
    await this.app.listen({ host, port: this.options.port ?? 0 });
    const { port } = this.app.server.address() as { port: number };
    this.url = `http://${host}:${port}`;
    return this.url;
  }

  async close(): Promise<void> {
    await this.app.close();
  }

  /** The next request is answered with this status (Cielo's error list on 4xx, nothing on 5xx). */
  failNext(status: number): void {
    this.nextFault = status;
  }

  private routes(): void {
    this.app.addHook('onRequest', async (request, reply) => {
      if (this.nextFault !== null) {
        const status = this.nextFault;
        this.nextFault = null;
        return reply.code(status).send(status < 500 ? [{ Code: 999, Message: 'Fault asked for' }] : '');
      }
      if (!this.merchantKnown(request))
        return reply.code(401).send([{ Code: 132, Message: 'MerchantKey is invalid' }]);
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

    this.app.get<{ Params: { token: string } }>('/1/card/:token', async (request, reply) => {
      const card = this.cards.get(request.params.token);
      if (!card) return reply.code(404).send([{ Code: 0, Message: 'Not found' }]);
      return reply.send(card);
    });
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
