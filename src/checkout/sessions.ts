import { randomUUID } from 'node:crypto';
import type { Queryable } from '../platform/db/db.js';
import { checkChargesOf, type OriginSale, salesOfSessions } from '../sales/index.js';
import { CheckoutNotFound } from './errors.js';
import type { CheckoutMethod } from './links.data.js';
import { chargesOf, methodsOf } from './links.js';
import { refuseBeyondMethods, refuseUntaken, type TakenMethods } from './methods.js';
import { type PayerInput, prefilledPayer } from './payer.js';
import { findSession, insertSession, type SessionItem, type SessionRow } from './sessions.data.js';
import { returnUrl } from './urls.js';

/** How long a session stays open, in seconds. */
export const SESSION_EXPIRES_IN = { min: 300, max: 86400, default: 3600 };

/** A checkout session as the merchant asks for it (the routes' schema checked each field's type and range). */
export interface SessionInput {
  amountCents: number;
  items: SessionItem[];
  customer?: PayerInput;
  methods: CheckoutMethod[];
  successUrl: string;
  cancelUrl?: string;
  expiresIn?: number;
  metadata?: Record<string, string>;
  /** Split payments: the session's sale is split so (the sales module's rules). */
  split?: unknown[];
}

export type SessionStatus = 'open' | 'paid' | 'expired';

export interface SessionView {
  id: string;
  url: string;
  status: SessionStatus;
  expiresAt: string;
  /** The paid sale (uuid); while open, the last sale started, if any. */
  saleId: string | null;
  amountCents: number;
  items: SessionItem[];
  customer: PayerInput | null;
  methods: CheckoutMethod[];
  successUrl: string;
  cancelUrl: string | null;
  metadata: Record<string, string>;
  split?: unknown[];
  createdAt: string;
}

/** Paid once a sale of it was paid (whatever happened to that sale after), expired past expiresAt, else open. */
export function sessionState(
  session: { expired: boolean },
  sales: readonly OriginSale[],
): { status: SessionStatus; paidSale: OriginSale | null; lastSale: OriginSale | null } {
  const paidSale = sales.find((s) => s.paid) ?? null;
  const lastSale = sales.at(-1) ?? null;
  const status = paidSale ? 'paid' : session.expired ? 'expired' : 'open';
  return { status, paidSale, lastSale };
}

/** The merchant's checkout sessions: create and read. */
export class CheckoutSessions {
  constructor(
    private readonly db: Queryable,
    private readonly publicUrl: string,
    /** What the gateway can take: a session offering anything else is refused. */
    private readonly taken: TakenMethods,
  ) {}

  async create(accountId: number, input: SessionInput): Promise<SessionView> {
    refuseUntaken(input.methods, this.taken);
    const methods = methodsOf(input.methods);
    refuseBeyondMethods(input.amountCents, methods);
    await checkChargesOf(this.db, accountId, input.split, chargesOf([input.amountCents], methods, null));
    const row = await insertSession(
      this.db,
      {
        id: randomUUID(),
        account_id: accountId,
        amount_cents: input.amountCents,
        items: input.items.map(({ title, unitPrice, quantity, tangible }) => ({
          title,
          unitPrice,
          quantity,
          tangible,
        })),
        customer: prefilledPayer(input.customer),
        methods,
        success_url: returnUrl(input.successUrl, 'successUrl')!,
        cancel_url: returnUrl(input.cancelUrl, 'cancelUrl'),
        metadata: input.metadata ?? {},
        split: input.split ?? null,
      },
      input.expiresIn ?? SESSION_EXPIRES_IN.default,
    );
    return this.view({ ...row, expired: false }, []);
  }

  async get(accountId: number, id: string): Promise<SessionView> {
    const row = await findSession(this.db, id, accountId);
    if (!row) throw new CheckoutNotFound('Checkout session not found');
    const sales = (await salesOfSessions(this.db, [row.id])).get(row.id) ?? [];
    return this.view(row, sales);
  }

  private view(r: SessionRow & { expired: boolean }, sales: readonly OriginSale[]): SessionView {
    const { status, paidSale, lastSale } = sessionState(r, sales);
    return {
      id: r.id,
      url: `${this.publicUrl}/checkout/${r.id}`,
      status,
      expiresAt: r.expires_at.toISOString(),
      saleId: (paidSale ?? lastSale)?.uuid ?? null,
      amountCents: r.amount_cents,
      items: r.items,
      customer: r.customer,
      methods: r.methods,
      successUrl: r.success_url,
      cancelUrl: r.cancel_url,
      metadata: r.metadata,
      ...(r.split ? { split: r.split } : {}),
      createdAt: r.created_at.toISOString(),
    };
  }
}
