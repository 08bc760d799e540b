import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import type { Logger } from 'pino';
import { saleFeeRates } from '../accounts/index.js';
import { GroupCommit } from '../platform/concurrency/group-commit.js';
import type { Db, Queryable } from '../platform/db/db.js';
import type { OutboxSignal } from '../platform/db/outbox-signal.js';
import { inSavepoint } from '../platform/db/savepoint.js';
import { isDatabaseUnavailable } from '../platform/db/unavailable.js';
import { AppError, conflict, validation } from '../platform/errors/app-error.js';
import type { PublicId } from '../platform/ids/public-ids.js';
import type { Queue } from '../platform/jobs/queue.js';
import { formatBrl } from '../platform/money/money.js';
import { openReview } from '../reviews/index.js';
import { ALLOW, auditRiskDecision, customerFacts, type RiskDecision, type RiskRules } from '../risk/index.js';
import {
  type Customer,
  captureLess,
  cartOfCheckout,
  chargeWrites,
  checkCaptureLess,
  checkChargeSplit,
  checkSaleSize,
  createKeyedSale,
  createSale,
  findSaleRow,
  lockSalesById,
  moveSale,
  normalizeCustomer,
  normalizePostbackUrl,
  ownedSale,
  type SaleItem,
  type SaleOrigin,
  type SaleRates,
  type SaleRow,
  SHARED_UNDER_LOAD,
  setRefusalReason,
  setSaleRisk,
  settleBatch,
} from '../sales/index.js';
import { addressProblem } from '../webhooks/index.js';
import type { Acquirer, AcquirerPayment, AuthorizeRequest, PaymentType } from './acquirer.js';
import { cardProcessorOf } from './card-refunds.js';
import { AcquirerRefused, AcquirerUnavailable } from './errors.js';
import {
  authorizationsOlderThan,
  type CardPaymentRow,
  claimCapture,
  clearRiskHold,
  findCardPayment,
  insertCardPayment,
  lockCardPayment,
  lockRecordingCaptures,
  openAuthorizationsOf,
  recordAcquirerState,
  releaseCapture,
  riskHoldsOlderThan,
  unresolvedOlderThan,
} from './payments.data.js';
import { refuseWhenPaused, watchRefusals } from './refusal-watch.js';
import { useSavedCard } from './saved-cards.js';
import { spendToken, TOKEN_UNUSABLE, tokenInTx, tokenToUse, type UsedCardToken } from './tokens.js';

/** A card sale's body on POST /api/transactions (the route's schema validated its types). */
export interface CardSaleInput {
  amount: number;
  paymentMethod: 'CREDIT_CARD' | 'DEBIT_CARD';
  /** A one-time token (POST /api/cards/tokens) or a customer's saved card. */
  card?: { token: string } | { cardId: string };
  installments?: number;
  capture?: boolean;
  customer: Customer;
  items: Omit<SaleItem, 'id'>[];
  shipping?: Record<string, unknown> | null;
  postbackUrl?: string;
  metadata?: Record<string, string>;
  /** The charge's split among the platform's recipients (checked by the sales module). */
  split?: unknown;
}

/** Where a payer's page started the sale (the checkout module's payer routes); nothing for the API's. */
export interface CardSaleContext {
  origin?: SaleOrigin;
  /** Runs in the transaction that stores the sale, after it: may refuse it (a payment link's uses). */
  reserve?: (tx: Queryable, saleId: number) => Promise<void>;
}

/** A card sale's body as checked, before anything is stored. */
interface CheckedCardSale {
  customer: Customer;
  postbackUrl: string | null;
  installments: number;
  capture: boolean;
  type: PaymentType;
}

/** A sale stored by `prepare`: the request for the acquirer, none when a risk rule refused it (`blocked`). */
interface Prepared {
  sale: SaleRow;
  request: AuthorizeRequest | null;
  blocked: boolean;
}

/** How many authorizations of one `openMany` wait on the acquirer at once. */
const AUTHORIZING_AT_ONCE = 16;

/** An authorization not captured within this is voided at the acquirer (the sale CANCELADO). */
export const AUTHORIZATION_LIFETIME_SECONDS = 7 * 86_400;
/** A sale whose authorization outcome is unknown this long is asked about by the resolving job. */
export const UNRESOLVED_AFTER_SECONDS = 60;
/**
 * How often authorizations held for a risk review past its deadline are voided (the card port's other statuses
 * are refreshed with every method's, every CHARGE_EXPIRY_EVERY_MS).
 */
export const RISK_HOLD_EXPIRY_EVERY_MS = 30_000;

/**
 * Card sales: the sale is stored (PENDENTE, the token used, the acquirer's side `authorizing`) before the acquirer
 * is asked, so a crash or a lost answer leaves a sale the resolving job settles by the order id (the sale's
 * uuid), never a charge without a sale. No database connection is held while the acquirer answers.
 */
export class CardSales {
  /**
   * The acquirer's answers of sales opened together, applied in one transaction (group commit, as the renewals'
   * `openMany` applies them): at rest, the answers of one turn of the event loop
   * (those of the sales stored together) are applied together on the next; a run that fails is applied again
   * answer by answer, so one cannot fail the others.
   */
  private readonly outcomes: GroupCommit<{ saleId: number; payment: AcquirerPayment }, SaleRow>;

  constructor(
    readonly db: Db,
    private readonly queue: Queue,
    private readonly acquirer: Acquirer,
    private readonly secretsKey: Buffer,
    private readonly options: { allowPrivateTargets: boolean; outbox?: OutboxSignal; risk?: RiskRules },
  ) {
    this.outcomes = new GroupCommit(
      async (outcomes) => {
        const sales = await this.applyMany(outcomes);
        return outcomes.map(
          (o) => sales.get(Number(o.saleId)) ?? new Error(`card sale ${o.saleId} not found`),
        );
      },
      { maxBatch: 32, ...SHARED_UNDER_LOAD, retryAlone: true },
    );
  }

  async open(
    accountId: number,
    input: CardSaleInput,
    key: string | null,
    log: Logger,
    context: CardSaleContext = {},
  ): Promise<{ sale: SaleRow; replayed: boolean }> {
    const checked = await this.check(input);
    let prepared: Prepared | null = null;
    const opened = await createKeyedSale(this.db, accountId, key, input, async (bind) => {
      // not for a replay (answered from its key): the standing, the rates and the pause read by the query the
      // charges arriving together share (nothing cached), and a split that cannot be refused before the card
      // is used
      // and a one-time token read as the charges arriving together read theirs (used in the transaction below)
      const [rates, token] = await Promise.all([
        checkChargeSplit(
          this.db,
          accountId,
          input.amount,
          { paymentMethod: input.paymentMethod, installments: checked.installments },
          input.split,
        ),
        input.card && 'token' in input.card
          ? tokenToUse(this.db, this.secretsKey, accountId, input.card.token)
          : undefined,
      ]);
      // stored in the transaction the charges opened together share (as a PIX charge is); safe to run twice
      return chargeWrites(this.db).run(async (tx) => {
        prepared = await this.prepare(tx, accountId, input, checked, context, { rates, token });
        await bind(tx, prepared.sale.id);
        return prepared.sale;
      });
    });
    const { request, blocked } = (prepared as Prepared | null) ?? { request: null, blocked: false };
    if (blocked) this.options.outbox?.committed();
    if (opened.replayed || !request) {
      return blocked
        ? { sale: (await findSaleRow(this.db, { kind: 'numeric', id: opened.sale.id }))!, replayed: false }
        : opened;
    }
    const payment = await this.authorize(request, log);
    // the sale as the transaction that applied the answer left it; still unknown: as it was stored
    const sale = payment
      ? await this.outcomes.submit({ saleId: opened.sale.id, payment })
      : (await findSaleRow(this.db, { kind: 'numeric', id: opened.sale.id }))!;
    return { sale, replayed: false };
  }

  /**
   * Card sales made together (a scheduler's renewals), each exactly as `open` makes one, with a transaction
   * per step instead of per sale: every sale stored in one (stored again, each in a savepoint of its own, when
   * one is refused: it leaves the others), the acquirer asked for each with no connection held, every outcome
   * applied in one. Answers
   * per item its sale's id, or what refused it before it was stored. A crash between the steps leaves what
   * `open` would: stored sales whose outcome the resolving job asks the acquirer for.
   */
  async openMany(
    items: { accountId: number; input: CardSaleInput; context?: CardSaleContext }[],
    log: Logger,
  ): Promise<({ saleId: number } | { error: unknown })[]> {
    const checked = await Promise.all(
      items.map((item) => this.check(item.input).catch((error: unknown) => ({ error }))),
    );
    // one transaction for the group; an item refused in it (rare: a deleted card) rolls it back, and the
    // group is stored again with each item in a savepoint of its own
    const store = (isolated: boolean) =>
      this.db.tx(async (tx) => {
        const out: (Prepared | { error: unknown })[] = [];
        for (const [i, item] of items.entries()) {
          const c = checked[i]!;
          if ('error' in c) {
            out.push(c);
            continue;
          }
          const prepare = (q: Queryable) =>
            this.prepare(q, item.accountId, item.input, c, item.context ?? {});
          out.push(
            isolated
              ? await inSavepoint(tx, prepare).catch((error: unknown) => ({ error }))
              : await prepare(tx),
          );
        }
        return out;
      });
    const prepared = await store(false).catch((err: unknown) => {
      if (isDatabaseUnavailable(err)) throw err;
      return store(true);
    });
    if (prepared.some((p) => 'blocked' in p && p.blocked)) this.options.outbox?.committed();
    const limit = pLimit(AUTHORIZING_AT_ONCE);
    const outcomes = await Promise.all(
      prepared.map((p) =>
        'request' in p && p.request
          ? limit(async () => {
              const payment = await this.authorize(p.request!, log).catch((err: unknown) => {
                log.warn({ sale: p.sale.uuid, err }, 'card authorization outcome unknown');
                return null;
              });
              return payment ? { saleId: p.sale.id, payment } : null;
            })
          : null,
      ),
    );
    await this.applyMany(outcomes.filter((o) => o !== null));
    return prepared.map((p) => ('error' in p ? p : { saleId: p.sale.id }));
  }

  /**
   * A card sale's own checks as `open` makes them before its card is used (its fields, the account's standing,
   * fee and split), nothing written (`PaymentMethodPort.check`).
   */
  async checkCharge(accountId: number, input: CardSaleInput): Promise<void> {
    const checked = await this.check(input);
    await checkChargeSplit(
      this.db,
      accountId,
      input.amount,
      { paymentMethod: input.paymentMethod, installments: checked.installments },
      input.split,
    );
  }

  /** What is checked of a card sale's body before anything is stored. */
  private async check(input: CardSaleInput): Promise<CheckedCardSale> {
    const credit = input.paymentMethod === 'CREDIT_CARD';
    if (!input.card) throw validation(`card is required for ${input.paymentMethod}`);
    if (!credit && input.installments !== undefined && input.installments !== 1) {
      throw validation('installments apply to CREDIT_CARD sales only');
    }
    checkSaleSize(input);
    const postbackUrl = normalizePostbackUrl(input.postbackUrl);
    if (postbackUrl && !this.options.allowPrivateTargets) {
      const problem = await addressProblem(postbackUrl, 'postbackUrl');
      if (problem) throw validation(problem);
    }
    return {
      customer: normalizeCustomer(input.customer),
      postbackUrl,
      installments: credit ? (input.installments ?? 1) : 1,
      capture: input.capture ?? true,
      type: credit ? 'CreditCard' : 'DebitCard',
    };
  }

  /**
   * In the caller's transaction: the sale stored PENDENTE with its card payment `authorizing` (the card used),
   * or refused at once by a risk rule; the request to send the acquirer, null when nothing is sent.
   */
  private async prepare(
    tx: Queryable,
    accountId: number,
    input: CardSaleInput,
    checked: CheckedCardSale,
    context: CardSaleContext,
    /**
     * Read before: the account's standing, rates and pause (else read here, in one statement), and a one-time
     * token (else read here; null: not usable).
     */
    given: { rates?: SaleRates; token?: UsedCardToken | null } = {},
  ): Promise<Prepared> {
    const { customer, postbackUrl, installments, capture, type } = checked;
    const credit = input.paymentMethod === 'CREDIT_CARD';
    const uuid = randomUUID();
    // the standing, the rates and the pause in one read, handed to the admission (not read again)
    const rates = given.rates ?? (await saleFeeRates(tx, [accountId]));
    refuseWhenPaused(rates.get(accountId)?.card_payments_paused === true);
    const card = input.card!;
    const token =
      'cardId' in card
        ? await useSavedCard(tx, this.secretsKey, accountId, card.cardId)
        : given.token !== undefined
          ? given.token
          : await tokenInTx(tx, this.secretsKey, accountId, card.token);
    if (!token) {
      throw validation(
        'cardId' in card ? 'card.cardId is not a saved card of a customer of this account' : TOKEN_UNUSABLE,
      );
    }
    if (token.acquirer !== this.acquirer.name) {
      throw validation(`card.token was made by the ${token.acquirer} acquirer, not the one in use`);
    }
    // a one-time token is used with the sale, in its transaction (checked again: a second use is refused)
    if ('token' in card) await spendToken(tx, token.id);
    const risk: RiskDecision =
      this.options.risk?.decide({
        method: input.paymentMethod,
        amountCents: input.amount,
        ...customerFacts(customer),
        ip: token.ip,
        card: { bin: token.bin, fingerprint: token.fingerprint },
      }) ?? ALLOW;
    const sale = await createSale(
      tx,
      {
        accountId,
        amount: input.amount,
        paymentMethod: input.paymentMethod,
        customer,
        items: input.items,
        shipping: input.shipping ?? null,
        installments: credit ? installments : null,
        processor: cardProcessorOf(this.acquirer),
        postbackUrl,
        cartId: await cartOfCheckout(tx, accountId, context.origin, {
          customer,
          items: input.items,
          amount: input.amount,
        }),
        recurrence: null,
        pixKey: null,
        externalTransactionId: uuid,
        cardLastFour: token.lastFour,
        cardBrand: token.brand,
        boletoCode: null,
        metadata: input.metadata ?? {},
        origin: context.origin,
        // a charge of POST /api/transactions carries expiresAt (the contract): a card's is its authorization's end,
        // after which one not captured is voided; a payer page's or a subscription's card sale has none
        chargeExpiry: context.origin ? null : { inSeconds: AUTHORIZATION_LIFETIME_SECONDS },
        // a sale no rule matched carries no decision
        risk: risk.decision === 'allow' ? null : risk,
        split: input.split,
      },
      { notifyPending: true, uuid, rates },
    );
    if (context.reserve) await context.reserve(tx, sale.id);
    await auditRiskDecision(tx, accountId, sale.id, risk);
    if (risk.decision === 'block') {
      // nothing reaches the acquirer: the sale is refused as it is stored
      await setRefusalReason(tx, sale.id, {
        code: 'RISK_BLOCKED',
        message: `Blocked by the risk rule "${risk.ruleName}"`,
      });
      await moveSale(tx, this.queue, sale.id, 'RECUSADO');
      return { sale, request: null, blocked: true };
    }
    const held = risk.decision === 'review';
    await insertCardPayment(tx, {
      saleId: sale.id,
      orderId: uuid,
      accountId,
      acquirer: this.acquirer.name,
      cardTokenId: token.id,
      type,
      installments,
      capture,
      amount: input.amount,
      riskHold: held,
    });
    const request: AuthorizeRequest = {
      merchantOrderId: uuid,
      amountCents: input.amount,
      installments,
      type,
      acquirerToken: token.acquirerToken,
      brand: token.brand,
      // a review holds the authorization uncaptured until a risk operator decides
      capture: capture && !held,
      customerName: customer.name,
    };
    return { sale, request, blocked: false };
  }

  /**
   * Asks the acquirer once; when its answer is lost (no answer, 5xx), asks by the order id whether it made the
   * payment, and only when it says it has none asks again, once. Null: still unknown (the resolving job's).
   */
  private async authorize(request: AuthorizeRequest, log: Logger): Promise<AcquirerPayment | null> {
    for (let attempt = 1; ; attempt++) {
      let lost: string;
      try {
        return await this.acquirer.authorize(request);
      } catch (err) {
        if (err instanceof AcquirerRefused) return refusedBy(err);
        if (!(err instanceof AcquirerUnavailable)) throw err;
        lost = err.message;
      }
      const found = await this.acquirer.findByOrderId(request.merchantOrderId).catch(() => undefined);
      if (found) return found;
      if (found === undefined || attempt === 2) {
        // said once, when the sale is left to the resolving job: not once per attempt
        log.warn(
          { sale: request.merchantOrderId, err: lost, attempts: attempt },
          'card authorization outcome unknown',
        );
        return null;
      }
    }
  }

  /**
   * What the acquirer reported, applied once (the acquirer's side locked first): authorized → EM_PROCESSAMENTO,
   * captured → PAGO (its captured amount), denied → RECUSADO with its reason, voided → CANCELADO.
   */
  async apply(saleId: number, payment: AcquirerPayment): Promise<void> {
    await this.db.tx(async (tx) => {
      const row = await lockCardPayment(tx, saleId);
      if (!row) return;
      await applyTo(tx, this.queue, row, payment);
    });
    this.options.outbox?.committed();
  }

  /**
   * Outcomes of several sales applied in one transaction: a capture in full of a sale still authorizing (the
   * common case) is recorded for all in one statement and settled through the batched settlement (the balance
   * rows moved with the COMMIT); any other outcome as `apply` does.
   */
  private async applyMany(
    outcomes: { saleId: number; payment: AcquirerPayment }[],
  ): Promise<Map<number, SaleRow>> {
    if (outcomes.length === 0) return new Map();
    const sales = await this.db.txEndingWith(async (tx) => {
      // the common answer, a capture in full of a sale still authorizing, recorded as its row is locked
      const rows = await lockRecordingCaptures(
        tx,
        outcomes.map((o) => o.saleId),
        outcomes.filter((o) => o.payment.state === 'captured'),
      );
      const captured: { saleId: number; payment: AcquirerPayment }[] = [];
      for (const o of outcomes) {
        const row = rows.get(o.saleId);
        if (!row) continue;
        if (row.captured_now) captured.push(o);
        else await applyTo(tx, this.queue, row, o.payment);
      }
      const last: string[] = [];
      // the sales as this transaction leaves them (what travels with its COMMIT moves balances, not sales):
      // a capture's as its settlement wrote it, any other's read again, locked by its move already
      const after = new Map<number, SaleRow>();
      if (captured.length > 0) {
        const settled = await settleBatch(
          tx,
          this.queue,
          captured.map((o) => ({ ref: { kind: 'numeric', id: o.saleId }, status: 'PAGO' })),
          (statement) => last.push(statement),
        );
        const refused = settled.find((r) => r instanceof AppError);
        if (refused) throw refused;
        for (const r of settled)
          if (typeof r === 'object' && 'sale' in r) after.set(Number(r.sale.id), r.sale);
      }
      const others = outcomes.map((o) => o.saleId).filter((id) => !after.has(id));
      if (others.length > 0)
        for (const sale of await lockSalesById(tx, others)) after.set(Number(sale.id), sale);
      return [after, last.join('\n;\n')];
    });
    this.options.outbox?.committed();
    return sales;
  }

  /** POST /api/transactions/{id}/capture: captures `amountCents` (the whole authorization when absent). */
  async capture(accountId: number, id: PublicId, amountCents: number | undefined): Promise<number> {
    const sale = ownedSale(await findSaleRow(this.db, id), accountId);
    const row = await findCardPayment(this.db, sale.id);
    if (!row) throw conflict(`a ${sale.payment_method} sale cannot be captured`);
    if (row.state !== 'authorized' || sale.status !== 'EM_PROCESSAMENTO') {
      throw conflict(`a sale in status ${sale.status} cannot be captured`);
    }
    if (row.risk_hold) {
      throw conflict('this sale is held for a risk review: it is captured or voided by the review');
    }
    const authorized = Number(row.authorized_amount);
    const amount = amountCents ?? authorized;
    if (amount > authorized) {
      throw validation(`amountCents must be at most the authorized amount, ${authorized}`);
    }
    if (
      row.authorized_at &&
      row.authorized_at.getTime() + AUTHORIZATION_LIFETIME_SECONDS * 1000 < Date.now()
    ) {
      throw conflict('the authorization is older than 7 days and can no longer be captured');
    }
    // a captured amount this sale cannot take (its fee, its split) is refused before the acquirer charges it
    await checkCaptureLess(this.db, sale, amount);
    // one capture at a time: a second one asked meanwhile is refused, never answered with the first's amount
    if (!(await claimCapture(this.db, sale.id))) {
      throw conflict(
        'this sale is being captured or was captured already; read it to see the amount captured',
      );
    }
    let payment: AcquirerPayment;
    try {
      payment = await this.acquirer.capture(row.payment_id!, amount);
    } catch (err) {
      // the capture may have been made (its answer lost): what the acquirer says of the payment now decides
      const found = await this.acquirer.findByOrderId(row.order_id).catch(() => null);
      if (found?.state !== 'captured') {
        await releaseCapture(this.db, sale.id);
        throw acquirerError(err);
      }
      payment = found;
    }
    await this.apply(sale.id, payment);
    return sale.id;
  }

  /**
   * POST /api/transactions/{id}/cancel of a card sale: an authorization not captured is voided at the acquirer and
   * the sale becomes CANCELADO (`sale.canceled`), its installments never scheduled. It takes the capture's claim, so
   * a void and a capture of one sale never cross; a void whose answer was lost is settled by what the acquirer
   * says of the payment.
   */
  async void(accountId: number, id: PublicId): Promise<number> {
    const sale = ownedSale(await findSaleRow(this.db, id), accountId);
    const row = await findCardPayment(this.db, sale.id);
    const refuse = (why: string) =>
      new AppError(
        'INVALID_STATUS',
        `a ${sale.payment_method} sale in status ${sale.status} cannot be cancelled: ${why}`,
      );
    if (row?.state !== 'authorized' || sale.status !== 'EM_PROCESSAMENTO') {
      throw refuse('only an authorization not captured is voided (a paid sale is refunded instead)');
    }
    if (row.risk_hold) throw refuse('it is held for a risk review, which captures or voids it');
    if (!(await claimCapture(this.db, sale.id))) throw refuse('it is being captured');
    let payment: AcquirerPayment;
    try {
      payment = await this.acquirer.cancel(row.payment_id!, Number(row.authorized_amount));
    } catch (err) {
      const found = await this.acquirer.findByOrderId(row.order_id).catch(() => null);
      if (found?.state !== 'voided') {
        await releaseCapture(this.db, sale.id);
        throw acquirerError(err);
      }
      payment = found;
    }
    await this.apply(sale.id, payment);
    return sale.id;
  }

  /**
   * A closed account's authorizations not captured, each voided as its merchant's cancel would (the sale
   * CANCELADO, the cardholder's limit released); one the acquirer does not void now is logged and left to the
   * void job (7 days). Those held for a risk review are the review's. Returns how many were voided.
   */
  async voidOpenOf(accountId: number, log: Logger): Promise<number> {
    let voided = 0;
    let after = 0;
    for (;;) {
      const open = await openAuthorizationsOf(this.db, accountId, after, 100);
      if (open.length === 0) return voided;
      for (const row of open) {
        after = Number(row.sale_id);
        try {
          await this.void(accountId, { kind: 'numeric', id: after });
          voided++;
        } catch (err) {
          if (!(err instanceof AppError && err.code === 'INVALID_STATUS'))
            log.warn(
              { sale: after, err },
              'a closed account’s card authorization was not voided: the void job will',
            );
        }
      }
    }
  }

  /**
   * The resolving job: a sale whose authorization outcome is still unknown is settled by what the acquirer says
   * of its order id; one the acquirer never made becomes FALHA (its token was used; the payer starts again).
   */
  async resolveUnknown(log?: Logger): Promise<number> {
    let resolved = 0;
    for (const row of await unresolvedOlderThan(this.db, UNRESOLVED_AFTER_SECONDS, 100)) {
      let found: AcquirerPayment | null;
      try {
        found = await this.acquirer.findByOrderId(row.order_id);
      } catch (err) {
        log?.warn(
          { sale: row.order_id, err: (err as Error).message },
          'card sale left unresolved: acquirer query failed',
        );
        continue;
      }
      if (found) await this.apply(row.sale_id, found);
      else await this.fail(row.sale_id);
      resolved++;
    }
    return resolved;
  }

  /** The void job: authorizations not captured within 7 days are voided at the acquirer (the sale CANCELADO). */
  async voidExpired(log?: Logger): Promise<number> {
    let voided = 0;
    for (const row of await authorizationsOlderThan(this.db, AUTHORIZATION_LIFETIME_SECONDS, 100)) {
      let payment: AcquirerPayment;
      try {
        // a capture whose answer was lost is applied, never voided
        const now = await this.acquirer.findByOrderId(row.order_id);
        payment =
          now && now.state !== 'authorized'
            ? now
            : await this.acquirer.cancel(row.payment_id!, Number(row.authorized_amount));
      } catch (err) {
        log?.warn(
          { sale: row.order_id, err: (err as Error).message },
          'expired card authorization not voided',
        );
        continue;
      }
      await this.apply(row.sale_id, payment);
      voided++;
    }
    return voided;
  }

  /**
   * A risk review of a held authorization decided (by a risk operator, or `expire`d by the review job):
   * approve captures it (or, when the merchant asked for no capture, leaves it to the merchant), reject and
   * expire void it at the acquirer and refuse the sale (RISK_REJECTED). The acquirer is asked first, no
   * connection held; then the sale, its risk decision and `inTx` (the review closed, the audit entry) commit
   * together. A sale no longer held (voided meanwhile) only has `inTx` run.
   */
  async decideHeld(
    saleId: number,
    decision: 'approve' | 'reject' | 'expire',
    inTx: (tx: Queryable) => Promise<void>,
  ): Promise<void> {
    const row = await findCardPayment(this.db, saleId);
    const held = row?.risk_hold === true && row.state === 'authorized';
    let payment: AcquirerPayment | null = null;
    if (held && decision === 'approve' && row.capture) {
      if (!(await claimCapture(this.db, saleId))) {
        throw conflict('this sale is being captured already: read it again in a moment');
      }
      try {
        payment = await this.acquirer.capture(row.payment_id!, Number(row.authorized_amount));
      } catch (err) {
        const found = await this.acquirer.findByOrderId(row.order_id).catch(() => null);
        if (found?.state !== 'captured') {
          await releaseCapture(this.db, saleId);
          throw acquirerError(err);
        }
        payment = found;
      }
    } else if (held && decision !== 'approve') {
      try {
        payment = await this.acquirer.cancel(row.payment_id!, Number(row.authorized_amount));
      } catch (err) {
        const found = await this.acquirer.findByOrderId(row.order_id).catch(() => null);
        if (found?.state !== 'voided') throw acquirerError(err);
        payment = found;
      }
    }
    await this.db.tx(async (tx) => {
      const locked = await lockCardPayment(tx, saleId);
      if (locked?.risk_hold) {
        await clearRiskHold(tx, saleId);
        const sale = (await findSaleRow(tx, { kind: 'numeric', id: saleId }))!;
        const status = decision === 'approve' ? 'approved' : decision === 'reject' ? 'rejected' : 'expired';
        await setSaleRisk(tx, saleId, {
          ...(sale.risk ?? { decision: 'review', rule: null }),
          reviewStatus: status,
        });
        if (payment?.state === 'voided' && locked.state === 'authorized') {
          await recordAcquirerState(tx, saleId, 'voided', payment);
          await setRefusalReason(tx, saleId, {
            code: 'RISK_REJECTED',
            message:
              decision === 'expire'
                ? 'Voided: the risk review was not decided in time'
                : 'Voided: rejected by a risk review',
          });
          await moveSale(tx, this.queue, saleId, 'RECUSADO');
        } else if (payment) {
          await applyTo(tx, this.queue, locked, payment);
        }
      }
      await inTx(tx);
    });
    this.options.outbox?.committed();
  }

  /** The review job: held authorizations older than `hours` are voided, their reviews closed by `close`. */
  async expireRiskHolds(
    hours: number,
    close: (tx: Queryable, row: { saleId: number; accountId: number }) => Promise<void>,
    log?: Logger,
  ): Promise<number> {
    let expired = 0;
    for (const row of await riskHoldsOlderThan(this.db, hours, 100)) {
      const ids = { saleId: Number(row.sale_id), accountId: Number(row.account_id) };
      try {
        await this.decideHeld(ids.saleId, 'expire', (tx) => close(tx, ids));
        expired++;
      } catch (err) {
        log?.warn({ sale: row.order_id, err: (err as Error).message }, 'expired risk review not voided');
      }
    }
    return expired;
  }

  private async fail(saleId: number): Promise<void> {
    await this.db.tx(async (tx) => {
      const row = await lockCardPayment(tx, saleId);
      if (row?.state !== 'authorizing') return;
      await recordAcquirerState(tx, saleId, 'failed', null);
      // the merchant is told why, as for a refusal: no payment exists at the acquirer, the payer starts again
      await setRefusalReason(tx, saleId, NO_ANSWER);
      await moveSale(tx, this.queue, saleId, 'FALHA');
    });
    this.options.outbox?.committed();
  }
}

async function applyTo(
  tx: Queryable,
  queue: Queue,
  row: CardPaymentRow,
  payment: AcquirerPayment,
): Promise<void> {
  if (row.state === payment.state) return;
  const saleId = row.sale_id;
  switch (payment.state) {
    case 'pending':
      // not decided at the acquirer: the resolving job asks again
      await recordAcquirerState(tx, saleId, row.state, payment);
      return;
    case 'authorized':
      if (row.state !== 'authorizing') return;
      await recordAcquirerState(tx, saleId, 'authorized', payment);
      await moveSale(tx, queue, saleId, 'EM_PROCESSAMENTO');
      if (row.risk_hold) await holdForReview(tx, row);
      return;
    case 'captured':
      if (row.state !== 'authorizing' && row.state !== 'authorized') return;
      await recordAcquirerState(tx, saleId, 'captured', payment);
      await captureLess(tx, saleId, payment.capturedCents || Number(row.authorized_amount));
      await moveSale(tx, queue, saleId, 'PAGO');
      return;
    case 'denied':
      if (row.state !== 'authorizing') return;
      await recordAcquirerState(tx, saleId, 'denied', payment);
      await setRefusalReason(tx, saleId, {
        code: payment.returnCode ?? 'unknown',
        message: payment.returnMessage ?? 'Denied by the acquirer',
      });
      await moveSale(tx, queue, saleId, 'RECUSADO');
      await watchRefusals(tx, Number(row.account_id));
      return;
    case 'voided':
      if (row.state !== 'authorizing' && row.state !== 'authorized') return;
      await recordAcquirerState(tx, saleId, 'voided', payment);
      await moveSale(tx, queue, saleId, 'CANCELADO');
      return;
  }
}

/** Why a card sale is FALHA: its authorization had no answer, and the acquirer has no payment of its order. */
const NO_ANSWER = {
  code: 'no_answer',
  message: 'A adquirente não respondeu à autorização e não tem pagamento deste pedido: nada foi cobrado',
} as const;

/** The acquirer answered the authorization without a payment (a 4xx): the sale is refused with its words. */
function refusedBy(err: AcquirerRefused): AcquirerPayment {
  return {
    paymentId: '',
    state: 'denied',
    amountCents: 0,
    capturedCents: 0,
    voidedCents: 0,
    returnCode: 'refused',
    returnMessage: err.message.slice(0, 200),
  };
}

function acquirerError(err: unknown): unknown {
  if (err instanceof AcquirerRefused) return new AppError('PROCESSOR_ERROR', err.message);
  if (err instanceof AcquirerUnavailable) {
    return new AppError('PROCESSOR_UNAVAILABLE', 'The card acquirer is unavailable: retry shortly');
  }
  return err;
}

/** A held authorization arrived: the risk review opens in the console's queue, the sale says it waits. */
async function holdForReview(tx: Queryable, row: CardPaymentRow): Promise<void> {
  const sale = (await findSaleRow(tx, { kind: 'numeric', id: row.sale_id }))!;
  const risk = sale.risk ?? { decision: 'review', rule: null };
  await setSaleRisk(tx, row.sale_id, { ...risk, reviewStatus: 'pending' });
  await openReview(tx, {
    kind: 'risk',
    accountId: Number(row.account_id),
    saleId: Number(row.sale_id),
    reason: `Regra de risco "${risk.ruleName ?? '?'}": venda ${sale.id} de ${formatBrl(Number(sale.amount))} no cartão autorizada e retida até a decisão`,
  });
}
