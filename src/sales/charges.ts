import { createHash, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { PspError } from '../payment-standards/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { TxLane } from '../platform/db/tx-lane.js';
import { AppError, inUse, keyReused, validation } from '../platform/errors/app-error.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import type { Queue } from '../platform/jobs/queue.js';
import { addDays } from '../platform/time/calendar.js';
import { fromSaoPaulo } from '../platform/time/sao-paulo.js';
import { addressProblem } from '../webhooks/index.js';
import { cartOfCheckout } from './cart-rules.js';
import {
  bindSaleKey,
  claimSaleKey,
  findExpiredCharges,
  findSaleRow,
  lockExpiredCharges,
  lockPendingCharge,
  otherSessionCharges,
  pendingChargesOf,
  releaseSaleKey,
} from './charges.data.js';
import { checkChargeSplit, createSale } from './create.js';
import type { SaleOrigin } from './data.js';
import { checkSaleSize, normalizeCustomer, normalizePostbackUrl } from './input.js';
import { ownedSale } from './lookup.js';
import type { ExpiredCharge, PixCharge, PixChargeProcessor } from './processors/processor.js';
import { moveSale } from './settlement/transition.js';
import type { Customer, PaymentMethod, SaleItem, SaleRow } from './types.js';

export const EXPIRES_IN = { min: 60, max: 86400, default: 3600 };

/** The sales paid through a charge at a Pix processor (a cob, a boleto's cobv, a Pix Automático cycle's cobr):
 * a PIX_AUTOMATICO sale still PENDENTE is a cycle scheduled at the PSP (a subscription's), not yet debited. */
const CHARGED_METHODS: readonly PaymentMethod[] = ['PIX', 'BOLETO', 'PIX_AUTOMATICO'];

const lanes = new WeakMap<Db, TxLane>();
/**
 * How the charges' writes share transactions: two in flight at most, and the second starts beside the first
 * only once 16 charges wait or after 10 ms (a run may be stuck behind a lock), else the waiting charges share
 * the next run. A charge spends most of its time before its write (its QR code, the processor's call), so
 * charges reach the lane spread out: started at once, four runs in flight committed about two charges each,
 * and a COMMIT's flush is most of what a small transaction costs PostgreSQL (docs/performance.md).
 */
export const SHARED_UNDER_LOAD = { parallel: 2, minBesideRunning: 16, maxWaitBesideMs: 10 } as const;
/**
 * The transactions that store new charges, shared under load (group commit, as cashouts are created): the
 * charges opened together pay one COMMIT and one flush. Each charge's statements, checks and refusals are its
 * own; a refusal runs the others again without it.
 */
export function chargeWrites(db: Db): TxLane {
  let lane = lanes.get(db);
  if (!lane) {
    lane = new TxLane(db, { maxBatch: 32, ...SHARED_UNDER_LOAD });
    lanes.set(db, lane);
  }
  return lane;
}

export interface ChargeInput {
  amount: number;
  paymentMethod: 'PIX';
  customer: Customer;
  items: Omit<SaleItem, 'id'>[];
  shipping?: Record<string, unknown> | null;
  postbackUrl?: string | null;
  expiresIn?: number;
  /** The store's own data, as given (validated by the route's schema). */
  metadata?: Record<string, string>;
  /** The charge's split among the platform's recipients (checked when the sale is stored, and before). */
  split?: unknown;
}

const unavailable = (to: string) =>
  new AppError('PROCESSOR_UNAVAILABLE', `No payment processor is configured to ${to}`);

/** A PIX charge's buyer and postback address checked (its size is checked before), nothing read or written. */
async function checkedPixRequest(
  input: ChargeInput,
  allowPrivateTargets: boolean,
): Promise<{ customer: Customer; postbackUrl: string | null }> {
  const customer = normalizeCustomer(input.customer);
  const postbackUrl = normalizePostbackUrl(input.postbackUrl);
  if (postbackUrl && !allowPrivateTargets) {
    const problem = await addressProblem(postbackUrl, 'postbackUrl');
    if (problem) throw validation(problem);
  }
  return { customer, postbackUrl };
}

/**
 * A PIX charge's own checks as `createPixSale` makes them (its fields, the account's fee against its amount, its
 * split), nothing written and nothing opened: what a charge a risk rule blocks is checked by first, so that a
 * request the charge itself refuses is answered 400, not stored as a refused sale.
 */
export async function checkPixCharge(
  db: Db,
  accountId: number,
  input: ChargeInput,
  allowPrivateTargets: boolean,
): Promise<void> {
  checkSaleSize(input);
  await checkedPixRequest(input, allowPrivateTargets);
  await checkChargeSplit(db, accountId, input.amount, { paymentMethod: 'PIX' }, input.split);
}

/**
 * POST /api/transactions: claims the Idempotency-Key, opens the charge at the processor, then stores the
 * PENDENTE sale (notified sale.pending) and binds the key to it in one transaction. No database connection is
 * held while the processor answers (up to 30 s: a slow PSP must not take the pool from every other request). A
 * processor failure leaves no sale and gives the key back; a repeat of a request still opening its charge
 * is refused (409), one that comes after it replays its sale.
 */
export async function createPixSale(
  db: Db,
  processor: PixChargeProcessor | null,
  accountId: number,
  input: ChargeInput,
  key: string | null,
  context: {
    allowPrivateTargets: boolean;
    log: Logger;
    origin?: SaleOrigin;
    /** Runs in the transaction that stores the sale, after it: may refuse it (a payment link's uses). */
    reserve?: (tx: Queryable, saleId: number) => Promise<void>;
    /**
     * A charge with due date (a subscription's) instead of an immediate one: payable until the end of
     * `daysAfter` days past `date` in São Paulo (then expired as any charge), addressed to the customer.
     */
    due?: { date: string; daysAfter: number };
  },
): Promise<{ sale: SaleRow; replayed: boolean }> {
  checkSaleSize(input);
  if (!processor) throw unavailable('open PIX charges');
  const { customer, postbackUrl } = await checkedPixRequest(input, context.allowPrivateTargets);
  const expiresIn = input.expiresIn ?? EXPIRES_IN.default;
  const normalized = { ...input, customer, postbackUrl, expiresIn, shipping: input.shipping ?? null };
  const hash = createHash('sha256').update(JSON.stringify(normalized)).digest('hex');
  let token: string | null = null;
  if (key !== null) {
    const claim = await claimOrReplay(db, accountId, key, hash);
    if ('sale' in claim) return { sale: claim.sale, replayed: true };
    token = claim.token;
  }
  const uuid = randomUUID();
  let charge: PixCharge | null = null;
  try {
    // refused here rather than after a charge that could be paid is open at the processor
    const rates = await checkChargeSplit(db, accountId, input.amount, { paymentMethod: 'PIX' }, input.split);
    const due = context.due && {
      ...context.due,
      payer: { name: customer.name, document: customer.document, email: customer.email },
    };
    charge = await processor
      .createPixCharge({ saleUuid: uuid, amount: input.amount, expiresIn, ...(due ? { due } : {}) })
      .catch((err: unknown) => {
        throw new AppError(
          'PROCESSOR_ERROR',
          `The payment processor failed to open the charge: ${reason(err)}`,
        );
      });
    const opened = charge;
    return await chargeWrites(db).run(async (tx) => {
      const sale = await createSale(
        tx,
        {
          accountId,
          amount: input.amount,
          paymentMethod: 'PIX',
          customer,
          items: input.items,
          shipping: normalized.shipping,
          installments: null,
          processor: processor.name,
          postbackUrl,
          cartId: await cartOfCheckout(tx, accountId, context.origin, {
            customer,
            items: input.items,
            amount: input.amount,
          }),
          recurrence: null,
          pixKey: opened.brCode,
          externalTransactionId: opened.externalTransactionId,
          cardLastFour: null,
          cardBrand: null,
          boletoCode: null,
          metadata: input.metadata ?? {},
          origin: context.origin,
          split: input.split,
          chargeExpiry: context.due ? { at: dueExpiry(context.due) } : { inSeconds: expiresIn },
        },
        { notifyPending: true, uuid, rates },
      );
      if (context.reserve) await context.reserve(tx, sale.id);
      // a claim taken over meanwhile (this request stalled past ABANDONED_CLAIM_SECONDS): the other request's
      // sale is the key's; this one rolls back and its charge is removed at the processor (releaseOrphan)
      if (key !== null && !(await bindSaleKey(tx, accountId, key, token!, sale.id))) throw inUse();
      return { sale, replayed: false };
    });
  } catch (err) {
    // first, and in the background: giving the key back needs the database, which may be what failed
    if (charge) releaseOrphan(db, processor, { uuid, amount: input.amount, ...charge }, context.log);
    if (key !== null) await releaseSaleKey(db, accountId, key, token!).catch(() => undefined); // its claim expires
    throw err;
  }
}

/** A charge with due date expires when the day after its last payable day starts in São Paulo. */
export function dueExpiry(due: { date: string; daysAfter: number }): Date {
  return fromSaoPaulo(`${addDays(due.date, due.daysAfter + 1)}T00:00`);
}

/**
 * A charge opened for a sale that was then not stored (its key taken over, the database failing) has no sale to
 * credit: it is made unpayable at the processor, in the background, as an expired one would be. A COMMIT whose
 * answer was lost may have stored the sale after all: the sale is looked up first, and a charge whose sale exists
 * (or cannot be looked up) is left to the expiry job.
 */
export function releaseOrphan(
  db: Db,
  processor: PixChargeProcessor,
  charge: ExpiredCharge,
  log: Logger,
): void {
  const ref = { externalTransactionId: charge.externalTransactionId };
  if (!processor.releaseExpired) {
    log.warn(
      ref,
      'charge opened for a sale that was not stored: this processor cannot remove it; it expires there',
    );
    return;
  }
  const release = processor.releaseExpired.bind(processor);
  findSaleRow(db, { kind: 'uuid', uuid: charge.uuid })
    .then(async (stored) => {
      if (stored) return; // committed after all: its charge is the sale's, settled or expired as any other
      await release(charge);
      log.warn(ref, 'charge opened for a sale that was not stored: removed at the processor');
    })
    .catch((err: unknown) =>
      log.error(
        { ...ref, err: reason(err) },
        'charge opened for a sale that was not stored could not be removed at the processor: it stays payable until it expires there',
      ),
    );
}

/**
 * A sale opened by another payment method's module (a boleto) under the same Idempotency-Key rules as a PIX
 * charge: `open` makes the sale and calls `bind` inside the transaction that stores it.
 */
export async function createKeyedSale(
  db: Db,
  accountId: number,
  key: string | null,
  request: unknown,
  open: (bind: (tx: Queryable, saleId: number) => Promise<void>) => Promise<SaleRow>,
): Promise<{ sale: SaleRow; replayed: boolean }> {
  if (key === null) return { sale: await open(async () => {}), replayed: false };
  const hash = createHash('sha256').update(JSON.stringify(request)).digest('hex');
  const claim = await claimOrReplay(db, accountId, key, hash);
  if ('sale' in claim) return { sale: claim.sale, replayed: true };
  try {
    const sale = await open(async (tx, saleId) => {
      if (!(await bindSaleKey(tx, accountId, key, claim.token, saleId))) throw inUse();
    });
    return { sale, replayed: false };
  } catch (err) {
    await releaseSaleKey(db, accountId, key, claim.token).catch(() => undefined);
    throw err;
  }
}

/**
 * Claims the key (→ its token: this request goes on), or returns the sale an earlier request with it made. As for
 * cashouts (decisions.md), answered in this route's transaction body: a different body → 422 `IDEMPOTENCY_KEY_REUSED`;
 * the first request still opening its charge → 409 `IDEMPOTENCY_KEY_IN_USE` (its failure frees the key for a
 * retry).
 */
async function claimOrReplay(
  db: Db,
  accountId: number,
  key: string,
  hash: string,
): Promise<{ token: string } | { sale: SaleRow }> {
  for (;;) {
    const claim = await claimSaleKey(db, accountId, key, hash);
    if (claim.state === 'claimed') return { token: claim.token };
    if (claim.requestHash === null) continue; // given back between the two statements: claim again
    if (claim.requestHash !== hash) throw keyReused();
    if (claim.saleId === null) throw inUse();
    return { sale: (await findSaleRow(db, { kind: 'numeric', id: claim.saleId }))! };
  }
}

/** What the merchant may read of a processor failure: a PspError's own message; anything else is not quoted. */
function reason(err: unknown): string {
  return err instanceof PspError ? err.message.slice(0, 200) : 'no usable answer';
}

/** How often pending charges are checked for expiry (started with the workers): well within a minute. */
export const CHARGE_EXPIRY_EVERY_MS = 15_000;

/**
 * Moves every pending charge past its expiry to CANCELADO (sale.canceled), 100 at a time. A processor that can
 * still be paid after our expiry (`releaseExpired`) is asked first, outside any transaction: it credits a charge
 * that was paid, or makes it unpayable; one it cannot answer for stays PENDENTE until the next round (logged).
 */
export async function cancelExpiredCharges(
  db: Db,
  queue: Queue,
  processors: ReadonlyMap<string, PixChargeProcessor> = new Map(),
  log?: Logger,
  /** Which sales' charges: a payment method's own (the Pix port's PIX and PIX_AUTOMATICO, the boleto's BOLETO). */
  methods: readonly PaymentMethod[] = CHARGED_METHODS,
): Promise<number> {
  let total = 0;
  let after: { at: Date; id: number } | null = null;
  const unreachable = new Set<string>();
  for (;;) {
    const batch = await findExpiredCharges(db, after, 100, methods);
    const cancel: number[] = [];
    for (const charge of batch) {
      const processor = processors.get(charge.processor);
      if (!processor?.releaseExpired) {
        cancel.push(charge.id);
        continue;
      }
      if (unreachable.has(charge.processor)) continue; // one timeout per round, not one per charge
      try {
        const released = await processor.releaseExpired({
          uuid: charge.uuid,
          amount: charge.amount,
          externalTransactionId: charge.external_transaction_id,
          paymentMethod: charge.payment_method,
        });
        if (released) cancel.push(charge.id);
      } catch (err) {
        if (err instanceof PspError && err.status === null) unreachable.add(charge.processor);
        log?.warn(
          { sale: charge.uuid, processor: charge.processor, err: reason(err) },
          'expired charge left PENDENTE: its processor could not confirm it unpaid',
        );
      }
    }
    total += await db.tx(async (tx) => {
      // a charge credited meanwhile (by releaseExpired or a webhook) is PAGO now and is left alone
      const ids = cancel.length ? await lockExpiredCharges(tx, cancel) : [];
      for (const id of ids) await moveSale(tx, queue, id, 'CANCELADO');
      return ids.length;
    });
    const last = batch.at(-1);
    if (!last || batch.length < 100) return total;
    after = { at: last.charge_expires_at, id: last.id };
  }
}

const CANCELLABLE: ReadonlySet<string> = new Set(CHARGED_METHODS);

/**
 * Cancels a PENDENTE PIX, BOLETO or scheduled PIX_AUTOMATICO sale at the merchant's request: its charge (cob, cobv or cobr) is removed at the
 * processor first, read back there as the expiry job does (one found paid is credited instead, and the
 * cancellation refused); then the sale becomes CANCELADO with sale.canceled. Any other status → INVALID_STATUS.
 */
export async function cancelCharge(
  db: Db,
  queue: Queue,
  processor: PixChargeProcessor | null,
  accountId: number,
  id: PublicId,
): Promise<number> {
  const sale = ownedSale(await findSaleRow(db, id), accountId);
  const refuse = (status: string) =>
    new AppError(
      'INVALID_STATUS',
      `a ${sale.payment_method} sale in status ${status} cannot be cancelled (only a PENDENTE PIX, BOLETO or scheduled PIX_AUTOMATICO sale)`,
    );
  if (sale.status !== 'PENDENTE' || !CANCELLABLE.has(sale.payment_method)) throw refuse(sale.status);
  if (processor?.releaseExpired && processor.name === sale.processor && sale.external_transaction_id) {
    const released = await processor
      .releaseExpired({
        uuid: sale.uuid,
        amount: Number(sale.amount),
        externalTransactionId: sale.external_transaction_id,
        paymentMethod: sale.payment_method,
      })
      .catch((err: unknown) => {
        throw new AppError(
          'PROCESSOR_ERROR',
          `The payment processor could not remove the charge: ${reason(err)}`,
        );
      });
    if (!released) throw refuse('PAGO');
  }
  return db.tx(async (tx) => {
    const locked = await lockPendingCharge(tx, sale.id);
    if (!locked) throw refuse('other than PENDENTE');
    await moveSale(tx, queue, sale.id, 'CANCELADO');
    return sale.id;
  });
}

/**
 * A closed account's charges awaiting payment, each cancelled as its merchant would (removed at the PSP first);
 * one that cannot be (the PSP down, paid meanwhile) is logged and left to expire or be credited. Returns how
 * many were cancelled.
 */
export async function cancelOpenChargesOf(
  db: Db,
  queue: Queue,
  processor: PixChargeProcessor | null,
  accountId: number,
  log: Logger,
): Promise<number> {
  let cancelled = 0;
  const failed = new Set<number>();
  for (;;) {
    const open = (await pendingChargesOf(db, accountId, 100 + failed.size)).filter((id) => !failed.has(id));
    if (open.length === 0) return cancelled;
    for (const id of open) {
      try {
        await cancelCharge(db, queue, processor, accountId, { kind: 'numeric', id });
        cancelled++;
      } catch (err) {
        failed.add(id);
        if (!(err instanceof AppError && err.code === 'INVALID_STATUS'))
          log.warn({ sale: id, err }, 'a closed account’s open charge was not cancelled: it expires');
      }
    }
  }
}

/**
 * A checkout session takes one payment: once a sale of it is paid, the session's other charges still awaiting
 * payment (a PIX or a boleto the payer opened before paying another way) are cancelled as their merchant would
 * cancel them, removed at the PSP first. One the PSP finds paid meanwhile is credited instead, a second payment
 * the merchant refunds. A PSP that fails throws, so that the job tries again later. Returns how many were
 * cancelled.
 */
export async function cancelSessionCharges(
  db: Db,
  queue: Queue,
  processor: PixChargeProcessor | null,
  paidSaleId: number,
): Promise<number> {
  let cancelled = 0;
  let failure: unknown = null;
  for (const other of await otherSessionCharges(db, paidSaleId)) {
    try {
      await cancelCharge(db, queue, processor, other.accountId, { kind: 'numeric', id: other.id });
      cancelled++;
    } catch (err) {
      // paid or ended meanwhile: nothing to cancel
      if (!(err instanceof AppError && err.code === 'INVALID_STATUS')) failure = err;
    }
  }
  if (failure) throw failure;
  return cancelled;
}
