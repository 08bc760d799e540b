import type { BoletoAddressIn } from '../boletos/index.js';
import type { Queryable } from '../platform/db/db.js';
import { toSaoPaulo } from '../platform/time/sao-paulo.js';
import type { BoletoSales, Customer, SaleOrigin, SaleRow } from '../sales/index.js';
import { BoletoUnavailable, CheckoutInputError } from './errors.js';
import type { CheckoutMethod } from './links.data.js';
import { amountFor, type PublicCheckout, reserveUse } from './pay.js';
import { type PayerInput, payerOf } from './payer.js';
import type { SessionItem } from './sessions.data.js';

/** The payer's address, which a boleto's registration needs (the boletos module checks each field). */
export type PayerAddress = BoletoAddressIn;

/** A boleto issued for a payer: what the page shows to pay it. */
export interface BoletoPayment {
  saleId: string;
  amountCents: number;
  digitableLine: string;
  pdfUrl: string;
  dueDate: string;
  /** The boleto híbrido's Pix: paying it pays the boleto. */
  pixCopyPaste: string;
  pixQrCode: string;
}

/** A payer's boleto is due this many days after the day it is issued (São Paulo's calendar). */
const DUE_IN_DAYS = 3;

/**
 * The payer's boletos of links and sessions: issued by the boletos module (as POST /api/transactions BOLETO
 * issues them), the sale carrying its link or session and joining the payer's cart in the transaction that
 * stores it.
 */
export class PublicBoletos {
  constructor(
    private readonly checkout: PublicCheckout,
    /** The boletos module's issuer; null when no PSP opens cobv charges (503). */
    private readonly boletos: BoletoSales | null,
    /** PUBLIC_URL: the payer's cart keeps the page's address (the recovery e-mail's link). */
    private readonly publicUrl: string,
  ) {}

  async payLink(
    slug: string,
    body: PayerInput & { amountCents?: number; address: PayerAddress },
    ip: string,
  ): Promise<BoletoPayment> {
    const link = await this.checkout.payableLink(slug);
    offersBoleto(link.methods);
    const amount = amountFor(link, body.amountCents);
    await this.checkout.refuseWhenUsedUp(link);
    const items = [{ title: link.title, unitPrice: amount, quantity: 1, tangible: false }];
    return this.issue(
      link.account_id,
      amount,
      payerOf(body),
      body.address,
      items,
      link.metadata,
      link.split,
      { paymentLinkId: link.id, recoveryUrl: `${this.publicUrl}/pay/${link.slug}` },
      ip,
      reserveUse(link),
    );
  }

  async paySession(
    id: string,
    body: PayerInput & { address: PayerAddress },
    ip: string,
  ): Promise<BoletoPayment> {
    const session = await this.checkout.payableSession(id);
    offersBoleto(session.methods);
    return this.issue(
      session.account_id,
      session.amount_cents,
      payerOf(body, session.customer),
      body.address,
      session.items,
      session.metadata,
      session.split,
      { checkoutSessionId: session.id, recoveryUrl: `${this.publicUrl}/checkout/${session.id}` },
      ip,
    );
  }

  private async issue(
    accountId: number,
    amount: number,
    customer: Customer,
    address: PayerAddress,
    items: SessionItem[],
    metadata: Record<string, string>,
    split: unknown,
    origin: SaleOrigin,
    ip: string,
    reserve?: (tx: Queryable) => Promise<void>,
  ): Promise<BoletoPayment> {
    const boletos = this.boletos;
    if (!boletos) throw new BoletoUnavailable('No payment processor is configured to issue boletos');
    const body = {
      amount,
      customer: { ...customer, address },
      items,
      metadata,
      boleto: { dueDate: dueDate() },
      ...(split ? { split } : {}),
    };
    await this.checkout.refuseWhenBlocked(
      accountId,
      'BOLETO',
      { amount, customer, items, metadata },
      origin,
      ip,
      () => boletos.check(accountId, body),
    );
    const sale = await boletos.open(
      accountId,
      body,
      async (tx) => {
        if (reserve) await reserve(tx);
      },
      origin,
    );
    return paymentOf(sale);
  }
}

function offersBoleto(methods: readonly CheckoutMethod[]): void {
  if (!methods.includes('BOLETO')) {
    throw new CheckoutInputError('BOLETO is not a payment method of this checkout');
  }
}

function dueDate(): string {
  const today = toSaoPaulo(new Date()).slice(0, 10);
  return new Date(Date.parse(`${today}T00:00:00Z`) + DUE_IN_DAYS * 86_400_000).toISOString().slice(0, 10);
}

function paymentOf(sale: SaleRow): BoletoPayment {
  const b = sale.boleto as {
    digitableLine: string;
    pdfUrl: string;
    dueDate: string;
    pixCopyPaste: string;
    pixQrCode: string;
  };
  return {
    saleId: sale.uuid,
    amountCents: Number(sale.amount),
    digitableLine: b.digitableLine,
    pdfUrl: b.pdfUrl,
    dueDate: b.dueDate,
    pixCopyPaste: b.pixCopyPaste,
    pixQrCode: b.pixQrCode,
  };
}
