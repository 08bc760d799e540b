import type { Logger } from 'pino';
import { accountStanding } from '../accounts/index.js';
import { qrSvgDataUri } from '../payment-standards/index.js';
import { lockForTransaction } from '../platform/db/advisory-lock.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError } from '../platform/errors/app-error.js';
import type { Queue } from '../platform/jobs/queue.js';
import { resolveRecipients } from '../recipients/index.js';
import { customerFacts, type RiskRules } from '../risk/index.js';
import type { Customer, PixChargeProcessor, SaleOrigin } from '../sales/index.js';
import {
  checkPixCharge,
  createPixSale,
  type OriginSale,
  openBlockedSale,
  openChargeOfPayer,
  originSale,
  reservationsOfLink,
  salesOfSessions,
} from '../sales/index.js';
import { CheckoutGone, CheckoutInputError, CheckoutNotFound, CheckoutRefused } from './errors.js';
import type { CheckoutMethod, LinkRow } from './links.data.js';
import { findLinkBySlug } from './links.data.js';
import { type LinkView, usesOf } from './links.js';
import { offered, type TakenMethods } from './methods.js';
import { type PayerInput, payerOf } from './payer.js';
import { payerTokenOf } from './payer-token.js';
import { findSession, type SessionItem, type SessionRow } from './sessions.data.js';
import { type SessionStatus, sessionState } from './sessions.js';
import { isSlug } from './slugs.js';
import { successRedirect } from './urls.js';

/** What a public page shows of a payment link: never its metadata, uses or owner's data beyond a display name. */
export type PublicLink = Pick<
  LinkView,
  | 'title'
  | 'description'
  | 'amountCents'
  | 'minCents'
  | 'maxCents'
  | 'methods'
  | 'maxInstallments'
  | 'expiresAt'
> & { merchantName: string };

/** What a public page shows of a checkout session: never its metadata, customer or sales. */
export interface PublicSession {
  id: string;
  /** An expired session is 410. */
  status: Exclude<SessionStatus, 'expired'>;
  amountCents: number;
  items: SessionItem[];
  methods: CheckoutMethod[];
  expiresAt: string;
  merchantName: string;
  cancelUrl: string | null;
  /** Paid: where to send the payer (successUrl?session_id=<id>); null otherwise. */
  redirectUrl: string | null;
}

/** A PIX charge opened for a payer: what the page shows to pay it. */
export interface PixPayment {
  saleId: string;
  amountCents: number;
  pixCopyPaste: string;
  pixQrCode: string;
  expiresAt: string | null;
  /** The token the payer's page keeps and sends back: the same payer paying again is shown this charge. */
  payerToken: string;
}

/** What a payer sends to pay by PIX: their data, and the token their page keeps (none the first time). */
type PixPayInput = PayerInput & { payerToken?: string };

export interface PayDeps {
  db: Db;
  /** PUBLIC_URL: a payer's cart keeps the page's address (the recovery e-mail's link). */
  publicUrl: string;
  /** Who opens PIX charges (the sales module's); null when none is configured. */
  pixProcessor: PixChargeProcessor | null;
  allowPrivateTargets: boolean;
  /** What the gateway can take now: the pages offer only those of a link's or session's methods. */
  taken: TakenMethods;
  /** The risk rules in force; null: none asked. */
  risk: RiskRules | null;
  /** The job queue a refused sale's move is recorded with. */
  queue: Queue;
}

/** A PIX charge of a link stays payable an hour, and never past the link's own end. */
const LINK_CHARGE_SECONDS = 3600;
/** The shortest charge the sales module opens. */
const MIN_CHARGE_SECONDS = 60;

/** The public side of links and sessions: what a payer sees, and starting a PIX payment. */
export class PublicCheckout {
  constructor(private readonly deps: PayDeps) {}

  async link(slug: string): Promise<PublicLink> {
    const link = await this.payableLink(slug);
    return {
      title: link.title,
      description: link.description,
      amountCents: link.amount_cents,
      minCents: link.min_cents,
      maxCents: link.max_cents,
      methods: offered(link.methods, this.deps.taken),
      maxInstallments: link.max_installments,
      expiresAt: link.expires_at?.toISOString() ?? null,
      merchantName: link.merchant_name ?? '',
    };
  }

  async payLink(
    slug: string,
    body: PixPayInput & { amountCents?: number },
    log: Logger,
    ip: string,
  ): Promise<PixPayment> {
    const link = await this.payableLink(slug);
    offersPix(link.methods);
    const amount = amountFor(link, body.amountCents);
    const customer = payerOf(body);
    // the same payer paying again (a reload, a second press) is shown the charge already open for them, known
    // by their page's token: another payer typing the same CPF gets a charge of their own
    const payer = payerTokenOf(body.payerToken);
    const place = { paymentLinkId: link.id };
    const open = body.payerToken ? await openChargeOfPayer(this.deps.db, place, payer.hash, amount) : null;
    if (open) return paymentOf(open, payer.token);
    await this.refuseWhenUsedUp(link);
    const leftSeconds = link.expires_at ? Math.floor((link.expires_at.getTime() - Date.now()) / 1000) : null;
    const expiresIn = Math.max(MIN_CHARGE_SECONDS, Math.min(LINK_CHARGE_SECONDS, leftSeconds ?? Infinity));
    const items = [{ title: link.title, unitPrice: amount, quantity: 1, tangible: false }];
    const origin = {
      paymentLinkId: link.id,
      recoveryUrl: `${this.deps.publicUrl}/pay/${link.slug}`,
      payerTokenHash: payer.hash,
    };
    const charge = { amount, customer, items, metadata: link.metadata, split: link.split ?? undefined };
    await this.refuseWhenBlocked(link.account_id, 'PIX', charge, origin, ip, () =>
      this.checkPix(link.account_id, charge),
    );
    const uses = reserveUse(link);
    const onePerPayer = body.payerToken ? payerChargeOnce(place, payer.hash, amount) : undefined;
    return this.openPix(
      link.account_id,
      { ...charge, expiresIn },
      log,
      origin,
      payer.token,
      async (tx, saleId) => {
        // the payer's own charge first: a payer pressing twice is given their charge, not told the link is used up
        await onePerPayer?.(tx, saleId);
        await uses?.(tx);
      },
    );
  }

  async session(id: string): Promise<PublicSession> {
    const { session, state } = await this.sessionWithState(id);
    if (state.status === 'expired') throw new CheckoutGone('This checkout session has expired', 'expired');
    // an open session of a shop that takes no payments (waiting for review, suspended, closed) offers nothing
    if (state.status === 'open') await this.shopTakesPayments(session.account_id, session.split);
    return {
      id: session.id,
      status: state.status,
      amountCents: session.amount_cents,
      items: session.items,
      methods: offered(session.methods, this.deps.taken),
      expiresAt: session.expires_at.toISOString(),
      merchantName: session.merchant_name ?? '',
      cancelUrl: session.cancel_url,
      redirectUrl: state.status === 'paid' ? successRedirect(session.success_url, session.id) : null,
    };
  }

  /**
   * Opens the session's PIX charge, or gives back the one already open for this payer (a payer reloading the
   * page, or pressing twice, gets the same code rather than a second charge; known by their page's token, so
   * that nobody else is handed it).
   */
  async paySession(id: string, body: PixPayInput, log: Logger, ip: string): Promise<PixPayment> {
    const session = await this.payableSession(id);
    offersPix(session.methods);
    const customer = payerOf(body, session.customer);
    const payer = payerTokenOf(body.payerToken);
    const place = { checkoutSessionId: session.id };
    const open = body.payerToken
      ? await openChargeOfPayer(this.deps.db, place, payer.hash, session.amount_cents)
      : null;
    if (open) return paymentOf(open, payer.token);
    const leftSeconds = Math.floor((session.expires_at.getTime() - Date.now()) / 1000);
    const expiresIn = Math.max(MIN_CHARGE_SECONDS, Math.min(LINK_CHARGE_SECONDS, leftSeconds));
    const origin = {
      checkoutSessionId: session.id,
      recoveryUrl: `${this.deps.publicUrl}/checkout/${session.id}`,
      payerTokenHash: payer.hash,
    };
    const charge = {
      amount: session.amount_cents,
      customer,
      items: session.items,
      metadata: session.metadata,
      split: session.split ?? undefined,
    };
    await this.refuseWhenBlocked(session.account_id, 'PIX', charge, origin, ip, () =>
      this.checkPix(session.account_id, charge),
    );
    return this.openPix(
      session.account_id,
      { ...charge, expiresIn },
      log,
      origin,
      payer.token,
      body.payerToken ? payerChargeOnce(place, payer.hash, session.amount_cents) : undefined,
    );
  }

  /**
   * Before anything is opened at a processor: a link of maxUses whose every use is paid or held by a payment under
   * way turns a new payer away at once, with no processor call (reserveUse, in the sale's transaction, still
   * decides between payers arriving together).
   */
  async refuseWhenUsedUp(link: LinkRow): Promise<void> {
    if (link.max_uses === null) return;
    if ((await reservationsOfLink(this.deps.db, link.id)) >= link.max_uses) {
      throw new CheckoutGone(
        'This payment link has been used up: its uses are taken by payments made or in progress',
        'used_up',
      );
    }
  }

  /** The link that takes payments under `slug`: unknown → CheckoutNotFound; expired, used up or off → CheckoutGone. */
  async payableLink(slug: string): Promise<LinkRow & { merchant_name: string | null }> {
    const link = isSlug(slug) ? await findLinkBySlug(this.deps.db, slug) : null;
    if (!link) throw new CheckoutNotFound('Payment link not found');
    if (!link.active) throw new CheckoutGone('This payment link is turned off', 'turned_off');
    if (link.expires_at && link.expires_at.getTime() <= Date.now()) {
      throw new CheckoutGone('This payment link has expired', 'expired');
    }
    if (link.max_uses !== null && (await usesOf(this.deps.db, link.id)) >= link.max_uses) {
      throw new CheckoutGone('This payment link has been used up', 'used_up');
    }
    await this.shopTakesPayments(link.account_id, link.split);
    return link;
  }

  /**
   * The risk rules asked about a payer's PIX or boleto payment (`ip`: the payer's address): a block records the
   * refused sale on the link or session (RISK_BLOCKED, the shop and operators see it) and refuses the payer,
   * once the payment passed its own checks (`check`: they come first, and refuse it with their own error).
   */
  async refuseWhenBlocked(
    accountId: number,
    method: 'PIX' | 'BOLETO',
    charge: { amount: number; customer: Customer; items: SessionItem[]; metadata: Record<string, string> },
    origin: SaleOrigin,
    ip: string,
    check: () => Promise<void>,
  ): Promise<void> {
    const decision = this.deps.risk?.decide({
      method,
      amountCents: charge.amount,
      ...customerFacts(charge.customer),
      ip,
    });
    if (decision?.decision !== 'block') return;
    await openBlockedSale(
      this.deps.db,
      this.deps.queue,
      accountId,
      { ...charge, paymentMethod: method },
      null,
      decision,
      { origin, check },
    );
    throw new CheckoutRefused('Este pagamento foi recusado pela análise de risco da loja.');
  }

  /** A payer's PIX payment's own checks, as its charge makes them (its split above all). */
  private checkPix(
    accountId: number,
    charge: { amount: number; customer: Customer; items: SessionItem[]; split?: unknown },
  ): Promise<void> {
    // a payer's page gives no postback: no address to check
    return checkPixCharge(this.deps.db, accountId, { ...charge, paymentMethod: 'PIX' }, true);
  }

  /**
   * The session `id` while it takes a payment (every method's door): unknown → CheckoutNotFound; paid, expired
   * or its shop taking no payments → CheckoutGone.
   */
  async payableSession(id: string): Promise<SessionRow> {
    const { session, state } = await this.sessionWithState(id);
    if (state.status === 'paid') throw new CheckoutGone('This checkout session is already paid', 'paid');
    if (state.status === 'expired') throw new CheckoutGone('This checkout session has expired', 'expired');
    await this.shopTakesPayments(session.account_id, session.split);
    return session;
  }

  /**
   * A shop waiting for review, suspended or closed takes no payments: its pages say it is off. So does a page
   * whose split names a recipient deactivated since it was made (it takes no new split): the payer is told before
   * typing anything, and the reason is the shop's to see (its recipients), not the payer's.
   */
  private async shopTakesPayments(accountId: number, split: unknown[] | null): Promise<void> {
    const standing = await accountStanding(this.deps.db, accountId);
    if (standing?.status !== 'active') {
      throw new CheckoutGone('This shop is not taking payments right now', 'turned_off');
    }
    const ids = (split ?? []).map((rule) => String((rule as { recipientId?: unknown }).recipientId));
    if (ids.length === 0) return;
    try {
      await resolveRecipients(this.deps.db, accountId, ids);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'VALIDATION_ERROR')) throw err;
      throw new CheckoutGone('This page is not taking payments right now', 'unavailable');
    }
  }

  /** The session `id` with its sales and state; unknown → CheckoutNotFound. */
  async sessionWithState(id: string) {
    const session = UUID.test(id) ? await findSession(this.deps.db, id.toLowerCase(), null) : null;
    if (!session) throw new CheckoutNotFound('Checkout session not found');
    const sales = (await salesOfSessions(this.deps.db, [session.id])).get(session.id) ?? [];
    return { session, sales, state: sessionState(session, sales) };
  }

  private async openPix(
    accountId: number,
    charge: {
      amount: number;
      customer: Customer;
      items: SessionItem[];
      expiresIn: number;
      metadata: Record<string, string>;
      split?: unknown;
    },
    log: Logger,
    origin: SaleOrigin,
    payerToken: string,
    reserve?: (tx: Queryable, saleId: number) => Promise<void>,
  ): Promise<PixPayment> {
    try {
      const { sale } = await createPixSale(
        this.deps.db,
        this.deps.pixProcessor,
        accountId,
        { ...charge, paymentMethod: 'PIX' },
        null,
        { allowPrivateTargets: this.deps.allowPrivateTargets, log, origin, ...(reserve ? { reserve } : {}) },
      );
      const stored = await originSale(this.deps.db, sale.id);
      return paymentOf(stored!, payerToken);
    } catch (err) {
      // the same payer's request that came first stored its charge: this one's is removed, theirs is the answer
      if (err instanceof PayerChargeOpen) return paymentOf(err.sale, payerToken);
      throw err;
    }
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function offersPix(methods: readonly CheckoutMethod[]): void {
  if (!methods.includes('PIX')) throw new CheckoutInputError('PIX is not a payment method of this checkout');
}

/** A fixed link's own amount (the payer gives none), or the payer's within an open link's range. */
export function amountFor(link: LinkRow, given: number | undefined): number {
  if (link.amount_cents !== null) {
    if (given !== undefined && given !== link.amount_cents) {
      throw new CheckoutInputError('amountCents is fixed by this payment link: leave it out');
    }
    return link.amount_cents;
  }
  if (given === undefined) {
    throw new CheckoutInputError(
      `amountCents is required: from ${link.min_cents} to ${link.max_cents} cents`,
    );
  }
  if (given < link.min_cents! || given > link.max_cents!) {
    throw new CheckoutInputError(`amountCents must be from ${link.min_cents} to ${link.max_cents} cents`);
  }
  return given;
}

/**
 * For a link of limited uses: runs in the transaction that stores a new sale of the link, after it, and refuses
 * it when the link's reservations (paid sales and those that may still be paid, this one included) pass its uses.
 * The link's lock makes concurrent payers count one after the other, each seeing the others' committed sales.
 */
export function reserveUse(link: LinkRow): ((tx: Queryable) => Promise<void>) | undefined {
  const max = link.max_uses;
  if (max === null) return undefined;
  return async (tx) => {
    await lockForTransaction(tx, 'payment-link-uses', link.id);
    if ((await reservationsOfLink(tx, link.id)) > max) {
      throw new CheckoutGone(
        'This payment link has been used up: its uses are taken by payments made or in progress',
        'used_up',
      );
    }
  };
}

/** A charge of the same payer was stored first: the one being stored is not, and theirs is answered instead. */
class PayerChargeOpen extends Error {
  constructor(readonly sale: OriginSale) {
    super('This payer already has a charge open on this page');
  }
}

/**
 * One open charge per payer of a page, decided in the transaction that stores a new one: the payer's token is
 * locked, and a charge of theirs already stored (a request of theirs that came first: two tabs, or a script
 * pressing at once, each past the read before opening) refuses this one (`PayerChargeOpen`), whose caller answers
 * theirs. The read before the processor's call answers the common case (a reload) without opening anything.
 */
function payerChargeOnce(
  place: { paymentLinkId: string } | { checkoutSessionId: string },
  tokenHash: Buffer,
  amount: number,
): (tx: Queryable, saleId: number) => Promise<void> {
  const id = 'paymentLinkId' in place ? `link:${place.paymentLinkId}` : `session:${place.checkoutSessionId}`;
  return async (tx, saleId) => {
    await lockForTransaction(tx, 'checkout-payer', `${id}:${tokenHash.toString('hex')}`);
    const first = await openChargeOfPayer(tx, place, tokenHash, amount, saleId);
    if (first) throw new PayerChargeOpen(first);
  };
}

async function paymentOf(sale: OriginSale, payerToken: string): Promise<PixPayment> {
  return {
    saleId: sale.uuid,
    amountCents: sale.amount,
    pixCopyPaste: sale.pixKey!,
    pixQrCode: await qrSvgDataUri(sale.pixKey!),
    expiresAt: sale.chargeExpiresAt?.toISOString() ?? null,
    payerToken,
  };
}
