import type { Logger } from 'pino';
import type { CardBrand } from '../cards/index.js';
import { lockForTransaction } from '../platform/db/advisory-lock.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { conflict } from '../platform/errors/app-error.js';
import { type SaleOrigin, type SaleRow, saleFees, salesOfSessions } from '../sales/index.js';
import { CardsUnavailable, CheckoutGone, CheckoutInputError } from './errors.js';
import type { CheckoutMethod } from './links.data.js';
import { amountFor, type PublicCheckout, reserveUse } from './pay.js';
import { type PayerInput, payerOf } from './payer.js';
import type { SessionItem } from './sessions.data.js';
import { successRedirect } from './urls.js';

/** A card as the payer typed it on the page; it goes to the acquirer and is never kept. */
export interface PayerCardInput {
  number: string;
  holderName: string;
  expMonth: number;
  expYear: number;
  cvv: string;
}

/** A token the page holds for one charge: what the payer may be shown of their card. */
export interface PayerCardToken {
  token: string;
  brand: CardBrand;
  lastFour: string;
  expMonth: number;
  expYear: number;
}

/**
 * The cards module's side, as app.ts wires it (cards' payerCards): tokenize for an account, charge a token
 * (CREDIT_CARD, captured) with the sale carrying its link or session.
 */
export interface PayerCards {
  tokenize(accountId: number, card: PayerCardInput, ip: string): Promise<PayerCardToken>;
  charge(
    accountId: number,
    charge: {
      amount: number;
      token: string;
      installments: number;
      customer: ReturnType<typeof payerOf>;
      items: SessionItem[];
      metadata: Record<string, string>;
      split?: unknown;
    },
    context: { origin: SaleOrigin; reserve?: (tx: Queryable, saleId: number) => Promise<void> },
    log: Logger,
  ): Promise<SaleRow>;
}

/** The contract's installments: 1 to 12, credit only. */
export const MAX_INSTALLMENTS = 12;

/** One choice of the installments select: n payments of `installmentCents` (the first carries the remainder). */
export interface InstallmentOption {
  installments: number;
  installmentCents: number;
  firstInstallmentCents: number;
  totalCents: number;
}

/** The outcome the page shows: PAGO (paid), RECUSADO (the code says why), or still being confirmed. */
export interface CardPayment {
  saleId: string;
  status: string;
  amountCents: number;
  installments: number;
  cardBrand: string | null;
  cardLastFour: string | null;
  refusalCode: string | null;
  redirectUrl: string | null;
}

/** A payer's page: a link by its slug or a session by its id. */
export type PayerPage = { kind: 'link'; slug: string } | { kind: 'session'; id: string };

/** What the payer sends to pay: who they are, the token the page made, the installments, an open link's amount. */
export type CardPayInput = PayerInput & { amountCents?: number; token: string; installments: number };

/**
 * Cards on the hosted pages: the installments a card sale of this amount may have, the payer's card tokenized
 * for the page's account, the token charged through the cards module's CardSales (as POST /api/transactions).
 */
export class PublicCards {
  constructor(
    private readonly db: Db,
    private readonly checkout: PublicCheckout,
    /** null: the gateway takes no cards (503; the pages do not offer them). */
    private readonly cards: PayerCards | null,
    /** PUBLIC_URL: the payer's cart keeps the page's address. */
    private readonly publicUrl: string,
  ) {}

  /**
   * The installments a payer may choose for `amountCents` (an open link's; a fixed one's own otherwise): 1 up to
   * the link's maxInstallments (12 at most), without those whose card fee the sale would refuse (the account's
   * card fee grows with each installment) and those under a cent. The payer pays the amount: the fee is the
   * merchant's.
   */
  async installments(page: PayerPage, amountCents?: number): Promise<InstallmentOption[]> {
    this.available();
    const target = await this.target(page, amountCents);
    return this.optionsFor(target.accountId, target.amount, target.maxInstallments);
  }

  /**
   * The payer's card tokenized for the page's account. `countAttempt` counts it against the card-testing limits
   * once the page is found open and its account may charge (the one admission's order): a page that takes no
   * payment refuses a card without spending that card's attempts.
   */
  async tokenize(
    page: PayerPage,
    card: PayerCardInput,
    ip: string,
    countAttempt: () => Promise<void>,
  ): Promise<PayerCardToken> {
    const cards = this.available();
    const target = await this.target(page, undefined, true);
    await countAttempt();
    return cards.tokenize(target.accountId, card, ip);
  }

  async pay(page: PayerPage, body: CardPayInput, log: Logger): Promise<CardPayment> {
    const cards = this.available();
    const target = await this.target(page, body.amountCents);
    const options = await this.optionsFor(target.accountId, target.amount, target.maxInstallments);
    if (options.length === 0) throw new CheckoutInputError('this amount does not cover the card fee');
    if (!options.some((o) => o.installments === body.installments)) {
      throw new CheckoutInputError(
        `installments must be one of ${options.map((o) => o.installments).join(', ')} for this amount`,
      );
    }
    const sale = await cards.charge(
      target.accountId,
      {
        amount: target.amount,
        token: body.token,
        installments: body.installments,
        customer: payerOf(body, target.prefilled),
        items: target.items,
        metadata: target.metadata,
        split: target.split,
      },
      { origin: target.origin, ...(target.reserve ? { reserve: target.reserve } : {}) },
      log,
    );
    return {
      saleId: sale.uuid,
      status: sale.status,
      amountCents: Number(sale.amount),
      installments: sale.installments ?? 1,
      cardBrand: sale.card_brand,
      cardLastFour: sale.card_last_four,
      refusalCode: sale.status === 'RECUSADO' ? (sale.refusal_reason?.code ?? 'unknown') : null,
      redirectUrl: sale.status === 'PAGO' ? target.redirectUrl : null,
    };
  }

  private available(): PayerCards {
    if (!this.cards) throw new CardsUnavailable('This gateway takes no cards now');
    return this.cards;
  }

  private async optionsFor(accountId: number, amount: number, max: number): Promise<InstallmentOption[]> {
    const options: InstallmentOption[] = [];
    for (let n = 1; n <= Math.min(max, amount); n++) {
      // the fee the card sale will charge (sales' saleFees): an installment count it does not cover is refused
      const covered = await saleFees(this.db, accountId, amount, {
        paymentMethod: 'CREDIT_CARD',
        installments: n,
      }).then(
        () => true,
        () => false,
      );
      if (!covered) break; // the fee only grows with n
      const each = Math.floor(amount / n);
      options.push({
        installments: n,
        installmentCents: each,
        firstInstallmentCents: amount - each * (n - 1),
        totalCents: amount,
      });
    }
    return options;
  }

  /** The page's account, amount and sale details; refused when it does not offer cards or takes no payments. */
  private async target(page: PayerPage, amountCents: number | undefined, tokenOnly = false) {
    if (page.kind === 'link') {
      const link = await this.checkout.payableLink(page.slug);
      offersCard(link.methods);
      const amount = tokenOnly ? 0 : amountFor(link, amountCents);
      if (!tokenOnly) await this.checkout.refuseWhenUsedUp(link);
      return {
        accountId: link.account_id,
        amount,
        maxInstallments: Math.min(link.max_installments ?? MAX_INSTALLMENTS, MAX_INSTALLMENTS),
        prefilled: null,
        items: [{ title: link.title, unitPrice: amount, quantity: 1, tangible: false }],
        metadata: link.metadata,
        split: link.split ?? undefined,
        origin: { paymentLinkId: link.id, recoveryUrl: `${this.publicUrl}/pay/${link.slug}` },
        reserve: reserveUse(link),
        redirectUrl: link.success_url,
      };
    }
    const session = await this.checkout.payableSession(page.id);
    offersCard(session.methods);
    if (amountCents !== undefined) {
      throw new CheckoutInputError('amountCents is the session’s own: leave it out');
    }
    return {
      accountId: session.account_id,
      amount: session.amount_cents,
      maxInstallments: MAX_INSTALLMENTS,
      prefilled: session.customer,
      items: session.items,
      metadata: session.metadata,
      split: session.split ?? undefined,
      origin: { checkoutSessionId: session.id, recoveryUrl: `${this.publicUrl}/checkout/${session.id}` },
      reserve: unpaidSession(session.id),
      redirectUrl: successRedirect(session.success_url, session.id),
    };
  }
}

function offersCard(methods: readonly CheckoutMethod[]): void {
  if (!methods.includes('CREDIT_CARD')) {
    throw new CheckoutInputError('CREDIT_CARD is not a payment method of this checkout');
  }
}

/**
 * A session's card sale is stored only while no sale of it is paid: the session's lock makes two payers (two
 * tabs) count one after the other. (An authorization still being asked for is not seen: see docs/decisions.md.)
 */
function unpaidSession(sessionId: string): (tx: Queryable) => Promise<void> {
  return async (tx) => {
    await lockForTransaction(tx, 'checkout-session-pay', sessionId);
    const sales = (await salesOfSessions(tx, [sessionId])).get(sessionId) ?? [];
    if (sales.some((s) => s.paid)) throw new CheckoutGone('This checkout session is already paid', 'paid');
    // a card payment still being decided (at the acquirer, or held for a risk review) may yet be paid: a second
    // one at the same time would pay the session twice (a PIX or boleto left open is not paid by a card's
    // answer, and is cancelled when the session is paid)
    // (this one, stored just before in this transaction, is among them)
    const deciding = sales.filter(
      (s) => s.pixKey === null && (s.status === 'PENDENTE' || s.status === 'EM_PROCESSAMENTO'),
    );
    if (deciding.length > 1) {
      throw conflict('A card payment of this checkout session is being decided: wait for its answer');
    }
  };
}
