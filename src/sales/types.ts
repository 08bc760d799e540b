import type { SaleStatus } from './settlement/status-machine.js';

export const PAYMENT_METHODS = [
  'PIX',
  'CREDIT_CARD',
  'DEBIT_CARD',
  'BOLETO',
  'TRANSFER',
  'PIX_AUTOMATICO',
] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export interface Customer {
  name: string;
  email: string;
  document: string;
  phone: string;
}

export interface SaleItem {
  id: number;
  title: string;
  unitPrice: number;
  quantity: number;
  tangible: boolean;
}

/** A row of `sales` as the database returns it. */
export interface SaleRow {
  id: number;
  uuid: string;
  account_id: number;
  status: SaleStatus;
  amount: number;
  system_fee: number;
  /** The terms system_fee was computed with at creation (null: a sale made before they were kept). */
  fee_percent_e4: number | null;
  fee_fixed: number | null;
  net_amount: number;
  reserve_amount: number;
  reserve_held: boolean;
  /** What refunds made so far returned to the payer, and the share of the net they took from the merchant. */
  refunded_amount: number;
  refunded_net: number;
  /** The net shares of the refunds still waiting for their processor (held out of available). */
  refund_pending_net: number;
  payment_method: PaymentMethod;
  customer: Customer;
  items: SaleItem[];
  shipping: Record<string, unknown> | null;
  pix_key: string | null;
  card_last_four: string | null;
  card_brand: string | null;
  boleto_code: string | null;
  installments: number | null;
  processor: string;
  external_transaction_id: string;
  postback_url: string | null;
  cart_id: number | null;
  recurrence_id: number | null;
  id_rec: string | null;
  contrato: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  /** The charge's metadata as given ({} when none). */
  metadata: Record<string, string>;
  charge_expires_at: Date | null;
  /** What the payer paid (boletos: fine and interest included or the discount taken off); null until paid. */
  paid_amount: number | null;
  boleto: Record<string, unknown> | null;
  /** The payment link or checkout session the sale was made through (the checkout module); null otherwise. */
  payment_link_id: string | null;
  checkout_session_id: string | null;
  /** A refused card sale: the acquirer's code and message (the Sale object's refusalReason). */
  refusal_reason: { code: string; message: string } | null;
  /** The risk rules' decision (the Sale object's risk); null for sales no rule was asked about. */
  risk: { decision: string; rule: number | null; ruleName?: string; reviewStatus?: string } | null;
  /** A split sale's `split` (the Sale object's: each rule and the platform, with netCents); null otherwise. */
  split: unknown;
  /** The split's recipients (internal ids), in the order of its rules. */
  split_recipients: (number | string)[] | null;
  /** The API contract's Sale object as JSON text (kept by a trigger, migrations/020_sales.sql). */
  public_json: string;
  /** The subscription whose period the sale charges (its uuid); null for any other sale. */
  subscription_id: string | null;
}
