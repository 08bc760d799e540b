import { saleFeeRates } from '../accounts/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import { toSaoPaulo } from '../platform/time/sao-paulo.js';
import { findSaleRow } from './charges.data.js';
import { lockSale } from './data.js';
import { repriced } from './repriced.js';
import type { PaymentMethod, SaleRow } from './types.js';

/**
 * What a payment method asks of a payment made on `paidOn` (São Paulo date): the amount due in cents, or null
 * when the sale can no longer be paid. A method without a rule is due its sale's amount. The boletos module
 * sets the BOLETO rule (fine, interest, discount) at start.
 */
export type PaidAmountRule = (tx: Queryable, sale: SaleRow, paidOn: string) => Promise<number | null>;

const rules = new Map<PaymentMethod, PaidAmountRule>();

export function setPaidAmountRule(method: PaymentMethod, rule: PaidAmountRule): void {
  rules.set(method, rule);
}

/** The amount a payment of the sale at `paidAt` must be (no rule: the sale's amount). */
export async function amountDue(tx: Queryable, sale: SaleRow, paidAt: Date): Promise<number | null> {
  const rule = rules.get(sale.payment_method);
  return rule ? rule(tx, sale, toSaoPaulo(paidAt).slice(0, 10)) : sale.amount;
}

/**
 * A sale paid another amount than its own (a boleto with fine and interest, or a discount): `paidAmount` is
 * recorded and its fee (on the terms the sale was created with), net and reserve computed on it, in the transaction that then moves it to PAGO.
 */
export async function recordPaidAmount(tx: Queryable, sale: SaleRow, paid: number): Promise<void> {
  await recordPaidAmounts(tx, [{ sale, amount: paid }]);
}

/**
 * recordPaidAmount of many sales (locked by the caller, distinct) in two statements: their accounts' rates, then
 * one update. Returns the sales as they are now, in the order given, for the moves that follow.
 */
export async function recordPaidAmounts(
  tx: Queryable,
  paid: { sale: SaleRow; amount: number }[],
): Promise<SaleRow[]> {
  if (paid.length === 0) return [];
  const rates = await saleFeeRates(
    tx,
    paid.map((p) => p.sale.account_id),
  );
  // a split sale's parties' nets on the paid amount too, as the ledger writes them
  const fees = paid.map((p) => repriced(rates, p.sale, p.amount));
  const rows = await tx.query<SaleRow>(
    `UPDATE sales s SET paid_amount = u.paid, system_fee = u.fee, net_amount = u.net, reserve_amount = u.reserve,
            split = COALESCE(u.split::json, s.split), updated_at = now()
       FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[], $6::text[])
         AS u(id, paid, fee, net, reserve, split)
      WHERE s.id = u.id
     RETURNING s.*`,
    [
      paid.map((p) => p.sale.id),
      paid.map((p) => p.amount),
      fees.map((f) => f.systemFee),
      fees.map((f) => f.netAmount),
      fees.map((f) => f.reserveAmount),
      fees.map((f) => (f.split === null ? null : JSON.stringify(f.split))),
    ],
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  return paid.map((p) => byId.get(Number(p.sale.id))!);
}

/** A payment that reached a sale already paid (a boleto's Pix after its barcode, say). */
export interface PaymentAgain {
  /** The payment's own reference, unique per payment (a Pix's end-to-end id). */
  reference: string;
  amount: number;
  /** What the payment was, for a person reading the record. */
  detail: string;
}

/**
 * What a payment method does with a payment of a sale already paid: true when it recorded it (the payment then
 * credits nothing), false when it is no second payment to it. The boletos module records a BOLETO's as a
 * reconciliation discrepancy.
 */
export type PaidAgainRule = (tx: Queryable, sale: SaleRow, payment: PaymentAgain) => Promise<boolean>;

const againRules = new Map<PaymentMethod, PaidAgainRule>();

export function setPaidAgainRule(method: PaymentMethod, rule: PaidAgainRule): void {
  againRules.set(method, rule);
}

/** A payment of `sale` handed to its method's rule (no rule: not recorded, false). */
export async function recordPaidAgain(tx: Queryable, sale: SaleRow, payment: PaymentAgain): Promise<boolean> {
  const rule = againRules.get(sale.payment_method);
  return rule ? rule(tx, sale, payment) : false;
}

/**
 * Where a payment the gateway takes no charge for is recorded: money the payer is owed back, crediting nothing
 * (a Pix of a sale closed unpaid, a Pix Automático cycle the admission refused). The reconciliation module
 * installs it (a discrepancy `closed_charge_paid`). `detail` says, for a person, what was paid and why it
 * credits nothing.
 */
export type OwedBackRecorder = (
  tx: Queryable,
  payment: PaymentAgain & { txid: string | null },
) => Promise<void>;

let owedBackRecorder: OwedBackRecorder | null = null;

export function setOwedBackRecorder(recorder: OwedBackRecorder): void {
  owedBackRecorder = recorder;
}

/** A payment owed back to its payer, handed to the recorder the reconciliation module installed. */
export async function recordOwedBack(
  tx: Queryable,
  payment: PaymentAgain & { txid: string | null },
): Promise<void> {
  if (!owedBackRecorder) throw new Error('the owed-back payment recorder is not installed (sale-rules.ts)');
  await owedBackRecorder(tx, payment);
}

/** A payment of `sale`, closed unpaid (cancelled, refused, failed): owed back to its payer. */
export async function recordClosedChargePayment(
  tx: Queryable,
  sale: SaleRow,
  payment: PaymentAgain,
): Promise<void> {
  await recordOwedBack(tx, {
    ...payment,
    txid: sale.external_transaction_id,
    detail: `sale ${sale.uuid} is ${sale.status} (${payment.detail}): not credited`,
  });
}

/**
 * The sandbox's payment of a sale awaiting it, as its processor would report a payment made now: a boleto paid
 * before its discount's date is paid less the discount, one paid late its fine and interest, recorded (with the
 * fee on it) before the move to PAGO. Nothing for a sale due its own amount, or not the account's.
 */
export async function recordAmountDueNow(db: Db, id: PublicId, accountId: number): Promise<void> {
  const found = await findSaleRow(db, id);
  if (
    !found ||
    found.account_id !== accountId ||
    found.status !== 'PENDENTE' ||
    !rules.has(found.payment_method)
  )
    return;
  await db.tx(async (tx) => {
    const sale = await lockSale(tx, found.id);
    if (sale?.status !== 'PENDENTE' || sale.paid_amount !== null) return;
    const due = await amountDue(tx, sale, new Date());
    if (due !== null && due !== sale.amount) await recordPaidAmount(tx, sale, due);
  });
}
