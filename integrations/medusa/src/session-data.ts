import type { PaymentProviderContext } from '@medusajs/framework/types';
import { MedusaError } from '@medusajs/framework/utils';
import type { ChargeCreate, Sale } from '@payment-gateway/sdk';

export type Method = 'pix' | 'boleto' | 'card';

/**
 * A payment session's `data` as this provider keeps it (Medusa stores it on the session, then on the payment).
 * The storefront sends the inputs (`method`, `customer`, `card`, `address`); the provider adds what the
 * gateway answered. The card token is dropped once it has been charged.
 */
export interface GatewaySessionData {
  method: Method;
  /** Medusa's payment session id (Medusa adds it), kept in the gateway sale's metadata. */
  session_id?: string;
  amountCents: number;
  customer?: CustomerInput;
  /** card: the one-time token of POST /api/cards/tokens (the payer's browser, the public key) */
  card?: { token?: string; installments?: number; brand?: string | null; lastFour?: string | null };
  /** boleto: the payer's address, and a due date (YYYY-MM-DD) if not the provider's default */
  address?: AddressInput;
  dueDate?: string;
  /** the gateway's sale, once there is one */
  saleId?: string;
  saleStatus?: string;
  refundedCents?: number;
  pix?: { brCode: string | null; qrCode: string | null; expiresAt: string | null };
  boleto?: { digitableLine: string | null; pdfUrl: string | null; dueDate: string | null };
  refusalReason?: { code: string; message: string } | null;
}

export interface CustomerInput {
  name?: string;
  email?: string;
  /** CPF or CNPJ: the gateway needs it for every charge */
  document?: string;
  phone?: string;
}

export interface AddressInput {
  street: string;
  number: string;
  district: string;
  city: string;
  state: string;
  zipCode: string;
}

const METHODS: readonly Method[] = ['pix', 'boleto', 'card'];

/** The session's data as the storefront or Medusa handed it, checked. */
export function readSessionData(data: Record<string, unknown> | undefined): GatewaySessionData {
  const method = (data?.method ?? 'pix') as Method;
  if (!METHODS.includes(method))
    throw invalid(`data.method must be one of ${METHODS.join(', ')} (got ${String(data?.method)})`);
  return { ...(data as object), method } as GatewaySessionData;
}

/**
 * What a storefront may say when it opens a session: the method and the buyer's inputs, and Medusa's own session
 * id. Anything else it sends is dropped: what the gateway answered (`saleId` above all, which would have the
 * provider read another sale as this session's payment instead of charging the buyer) is the provider's to add.
 */
export function storefrontInput(data: Record<string, unknown> | undefined): GatewaySessionData {
  const given = readSessionData(data);
  const card = given.card && typeof given.card === 'object' ? given.card : undefined;
  return {
    method: given.method,
    amountCents: 0,
    ...(typeof given.session_id === 'string' ? { session_id: given.session_id } : {}),
    ...(given.customer && typeof given.customer === 'object' ? { customer: given.customer } : {}),
    ...(card ? { card: { token: card.token, installments: card.installments } } : {}),
    ...(given.address && typeof given.address === 'object' ? { address: given.address } : {}),
    ...(typeof given.dueDate === 'string' ? { dueDate: given.dueDate } : {}),
  };
}

/** The customer a charge needs: the storefront's data first, then the Medusa customer's. */
export function chargeCustomer(
  data: GatewaySessionData,
  context: PaymentProviderContext | undefined,
): ChargeCreate['customer'] {
  const given = data.customer ?? {};
  const known = context?.customer;
  const name =
    given.name ??
    ([known?.first_name, known?.last_name].filter(Boolean).join(' ') || known?.company_name || undefined);
  const email = given.email ?? known?.email;
  const phone = given.phone ?? known?.phone ?? known?.billing_address?.phone ?? undefined;
  const document = given.document;
  const missing = Object.entries({ name, email, document, phone })
    .filter(([, value]) => !value)
    .map(([key]) => `customer.${key}`);
  if (missing.length > 0) throw invalid(`the payment session's data lacks ${missing.join(', ')}`);
  return { name: name!, email: email!, document: document!, phone: phone! };
}

/** The session's data after the gateway answered with its sale. */
export function withSale(data: GatewaySessionData, sale: Sale & { pixQrCode?: string }): GatewaySessionData {
  const next: GatewaySessionData = {
    ...data,
    saleId: sale.uuid,
    saleStatus: sale.status,
    refundedCents: Number(sale.refundedAmount ?? 0),
  };
  if (data.method === 'pix')
    next.pix = {
      brCode: sale.pixKey ?? null,
      // the QR image comes only with the creation answer: a later read keeps the one first given
      qrCode: sale.pixQrCode ?? data.pix?.qrCode ?? null,
      expiresAt: sale.expiresAt ?? null,
    };
  if (data.method === 'boleto')
    next.boleto = {
      digitableLine: sale.boleto?.digitableLine ?? sale.boletoCode ?? null,
      pdfUrl: sale.boleto?.pdfUrl ?? null,
      dueDate: sale.boleto?.dueDate ?? null,
    };
  if (data.method === 'card') {
    // the token is single-use and spent: it is not kept
    next.card = {
      installments: sale.installments ?? data.card?.installments ?? 1,
      brand: sale.cardBrand ?? null,
      lastFour: sale.cardLastFour ?? null,
    };
    next.refusalReason = sale.refusalReason ?? null;
  }
  return next;
}

export function invalid(message: string): MedusaError {
  return new MedusaError(MedusaError.Types.INVALID_DATA, message);
}
