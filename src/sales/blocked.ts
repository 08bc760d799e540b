import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../platform/db/db.js';
import type { Queue } from '../platform/jobs/queue.js';
import { auditRiskDecision, type RiskDecision } from '../risk/index.js';
import { findSaleRow } from './charges.data.js';
import { createKeyedSale } from './charges.js';
import { createSale, type SaleDoor } from './create.js';
import { type SaleOrigin, setRefusalReason } from './data.js';
import { normalizeCustomer, normalizePostbackUrl } from './input.js';
import { moveSale } from './settlement/transition.js';
import type { Customer, PaymentMethod, SaleItem, SaleRow } from './types.js';

/** A PIX or boleto charge's body (validated by ChargeBody), as far as a refused sale keeps it. */
export interface BlockedChargeInput {
  amount: number;
  paymentMethod: PaymentMethod;
  customer: Customer;
  items: Omit<SaleItem, 'id'>[];
  shipping?: Record<string, unknown> | null;
  postbackUrl?: string | null;
  metadata?: Record<string, string>;
}

/** Where a blocked charge comes from, and what it must pass before it is stored. */
export interface BlockedSaleOptions {
  /** A payer's page it was started on (a payment link or checkout session): the sale carries it. */
  origin?: SaleOrigin;
  /** Runs in the transaction that stores the sale, after it (a subscription's try bound to its sale). */
  inTx?: (tx: Queryable, saleId: number) => Promise<void>;
  /**
   * The charge's own checks (its method's, `PaymentMethodPort.check`): they come before the risk rules in the
   * admission, so a request they refuse is refused with their error and nothing is stored. Not run for a replay
   * of the request's Idempotency-Key.
   */
  check?: () => Promise<void>;
  /** The door it came through, for the account's standing (the sandbox's own sale route: `sandbox`). */
  door?: SaleDoor;
  /** A Pix Automático cycle's mandate (a PIX_AUTOMATICO sale carries it). */
  recurrence?: { id: number; idRec: string; contrato: string };
}

/**
 * A charge a risk rule blocks: stored RECUSADO with `refusalReason` RISK_BLOCKED and the decision, under the
 * Idempotency-Key rules of any charge, notified as any refused sale; nothing is opened at the processor.
 */
export async function openBlockedSale(
  db: Db,
  queue: Queue,
  accountId: number,
  input: BlockedChargeInput,
  key: string | null,
  risk: RiskDecision,
  { origin, inTx, check, door, recurrence }: BlockedSaleOptions = {},
): Promise<{ sale: SaleRow; replayed: boolean }> {
  return createKeyedSale(db, accountId, key, input, async (bind) => {
    if (check) await check();
    return db.tx(async (tx) => {
      const sale = await storeBlockedSale(tx, queue, accountId, input, risk, { origin, door, recurrence });
      if (inTx) await inTx(tx, sale.id);
      await bind(tx, sale.id);
      return (await findSaleRow(tx, { kind: 'numeric', id: sale.id }))!;
    });
  });
}

/**
 * In the caller's transaction: a sale a risk rule blocks, stored RECUSADO with `refusalReason` RISK_BLOCKED and
 * the decision audited, notified as any refused sale. Its id. A Pix Automático cycle's carries its mandate.
 */
export async function storeBlockedSale(
  tx: Queryable,
  queue: Queue,
  accountId: number,
  input: BlockedChargeInput,
  risk: RiskDecision,
  extra: {
    origin?: SaleOrigin;
    door?: SaleDoor;
    recurrence?: { id: number; idRec: string; contrato: string };
  } = {},
): Promise<{ id: number }> {
  const uuid = randomUUID();
  const sale = await createSale(
    tx,
    {
      accountId,
      amount: input.amount,
      paymentMethod: input.paymentMethod,
      customer: normalizeCustomer(input.customer),
      items: input.items,
      shipping: input.shipping ?? null,
      installments: null,
      processor: 'risk',
      postbackUrl: normalizePostbackUrl(input.postbackUrl),
      cartId: null,
      recurrence: extra.recurrence ?? null,
      pixKey: null,
      externalTransactionId: uuid,
      cardLastFour: null,
      cardBrand: null,
      boletoCode: null,
      metadata: input.metadata ?? {},
      risk,
      ...(extra.origin ? { origin: extra.origin } : {}),
    },
    { notifyPending: false, uuid, ...(extra.door ? { door: extra.door } : {}) },
  );
  await auditRiskDecision(tx, accountId, sale.id, risk);
  await setRefusalReason(tx, sale.id, {
    code: 'RISK_BLOCKED',
    message: `Blocked by the risk rule "${risk.ruleName}"`,
  });
  await moveSale(tx, queue, sale.id, 'RECUSADO');
  return { id: sale.id };
}
