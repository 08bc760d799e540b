import { createHash, randomUUID } from 'node:crypto';
import { anticipationRate } from '../accounts/index.js';
import {
  holdInstallments,
  installmentsOf,
  lockHeldInstallments,
  openInstallments,
  releaseInstallments,
  salesOfAnticipation,
  settleAnticipated,
} from '../ledger/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError, conflict, keyReused, notFound } from '../platform/errors/app-error.js';
import { formatPercentE4 } from '../platform/money/money.js';
import { toSaoPaulo } from '../platform/time/sao-paulo.js';
import { anticipableSales } from '../sales/index.js';
import { recordNotification } from '../webhooks/index.js';
import {
  type AnticipationRow,
  closeAnticipation,
  findByKey,
  insertAnticipation,
  lockAnticipation,
} from './data.js';
import { type AnticipationAsk, chooseInstallments, type Quote, quoteOf } from './quote.js';

/** An anticipation as the API shows it. */
export interface AnticipationView {
  id: string;
  status: AnticipationRow['status'];
  grossCents: number;
  feeCents: number;
  netCents: number;
  monthlyPercent: string;
  receivables: { date: string; amountCents: number }[];
  reason: string | null;
  createdAt: string;
  decidedAt: string | null;
  paidAt: string | null;
}

/** Who decided: an operator's e-mail, or `auto` (ANTICIPATION_AUTO_APPROVE). */
export type Decider = string;

const today = () => toSaoPaulo(new Date()).slice(0, 10);

/**
 * Anticipation of card receivables (decisions.md, "Anticipation"): a simulation, a request that holds its
 * installments, and its payment (one ledger entry) or refusal, each with its event through the outbox in the
 * same transaction.
 */
export class Anticipations {
  constructor(
    private readonly db: Db,
    private readonly autoApprove: boolean,
  ) {}

  /**
   * The sandbox playing the finance operator (`gateway trigger anticipation.*`): an anticipation requested and
   * at once approved (`paid`, or `rejected` when its receivables are gone) or rejected, whatever
   * ANTICIPATION_AUTO_APPROVE says. Only where the sandbox routes are.
   */
  async sandboxDecided(accountId: number, ask: AnticipationAsk, outcome: 'paid' | 'rejected') {
    const row = await this.db.tx(async (tx) => {
      const held = await this.hold(tx, accountId, ask, null, null);
      return outcome === 'paid'
        ? this.payOrReject(tx, held!, 'sandbox')
        : this.reject(tx, held!, 'sandbox', 'rejected in the sandbox');
    });
    return this.viewOf(this.db, row);
  }

  /** What an ask would take and pay now, at the account's rate; nothing is held. */
  async simulate(accountId: number, ask: AnticipationAsk): Promise<Quote> {
    return this.quote(this.db, accountId, ask);
  }

  /**
   * A request: its installments held (a concurrent request for the same ones is refused: CONFLICT), then paid
   * at once with auto-approval, else left `requested` for a finance operator. An Idempotency-Key replays the
   * first request's anticipation (as it is now); the same key with another body → IDEMPOTENCY_KEY_REUSED.
   */
  async request(
    accountId: number,
    ask: AnticipationAsk,
    key: string | null,
  ): Promise<{ view: AnticipationView; replayed: boolean }> {
    const hash = key === null ? null : createHash('sha256').update(JSON.stringify(ask)).digest('hex');
    const replay = async () => {
      const first = await findByKey(this.db, accountId, key!);
      if (!first) return null;
      if (first.request_hash !== hash) throw keyReused();
      return { view: await this.viewOf(this.db, first), replayed: true };
    };
    // a repeat: answered before its installments are looked for (the first took them)
    const earlier = key === null ? null : await replay();
    if (earlier) return earlier;
    const outcome = await this.db
      .tx(async (tx) => {
        const row = await this.hold(tx, accountId, ask, key, hash);
        if (!row) return { row: null };
        return { row: this.autoApprove ? await this.payOrReject(tx, row, 'auto') : row };
      })
      .catch(async (err: unknown) => {
        // a request with the key committed between the look above and this one's, taking the installments
        // this one then found gone: the answer is that request's
        const first = key !== null && err instanceof AppError ? await replay() : null;
        if (first) return { first };
        throw err;
      });
    if ('first' in outcome) return outcome.first;
    if (outcome.row) return { view: await this.viewOf(this.db, outcome.row), replayed: false };
    // a concurrent request with the key committed first: its anticipation, if it was this same ask
    const concurrent = await replay();
    if (!concurrent) throw conflict('A request with this Idempotency-Key was just refused: try again');
    return concurrent;
  }

  /**
   * A finance operator's decision on a `requested` anticipation: approve pays it (or refuses it when its
   * installments are no longer there), reject releases them. `audit` writes the operator's entry in the same
   * transaction.
   */
  async decide(
    uuid: string,
    decision: 'approve' | 'reject',
    decider: Decider,
    reason: string | null,
    audit: (tx: Queryable, before: AnticipationRow, after: AnticipationRow) => Promise<void>,
  ): Promise<AnticipationView> {
    const row = await this.db.tx(async (tx) => {
      const before = await lockAnticipation(tx, uuid);
      if (!before) throw notFound('Anticipation not found');
      if (before.status !== 'requested') {
        throw new AppError('INVALID_STATUS', `The anticipation is ${before.status}, not requested`);
      }
      const after =
        decision === 'approve'
          ? await this.payOrReject(tx, before, decider)
          : await this.reject(tx, before, decider, reason ?? 'rejected by an operator');
      await audit(tx, before, after);
      return after;
    });
    return this.viewOf(this.db, row);
  }

  /** A new `requested` anticipation holding its installments (null: the key names an earlier one). */
  private async hold(
    tx: Queryable,
    accountId: number,
    ask: AnticipationAsk,
    key: string | null,
    hash: string | null,
  ): Promise<AnticipationRow | null> {
    const quote = await this.quote(tx, accountId, ask);
    const rate = (await anticipationRate(tx, accountId)) ?? 0;
    const row = await insertAnticipation(tx, {
      uuid: randomUUID(),
      accountId,
      request: ask,
      monthlyPercentE4: rate,
      grossCents: quote.grossCents,
      feeCents: quote.feeCents,
      receivables: quote.receivables,
      key,
      hash,
    });
    if (!row) return null;
    // the sales first, then their installments: the order a refund locks them in (sale, then installments)
    await anticipableSales(
      tx,
      quote.installments.map((i) => i.saleId),
      true,
    );
    const held = await holdInstallments(
      tx,
      quote.installments.map((i) => i.id),
      row.id,
    );
    if (!held)
      throw conflict('Some of these receivables were just taken by another anticipation: simulate again');
    return row;
  }

  async viewOf(q: Queryable, row: AnticipationRow): Promise<AnticipationView> {
    return (await this.viewsOf(q, [row]))[0]!;
  }

  async viewsOf(q: Queryable, rows: AnticipationRow[]): Promise<AnticipationView[]> {
    // the installments held, read only for anticipations made before their receivables were kept
    const older = rows.filter((r) => r.receivables === null).map((r) => Number(r.id));
    const installments = older.length > 0 ? await installmentsOf(q, older) : new Map();
    return rows.map((r) => ({
      id: r.uuid,
      status: r.status,
      grossCents: Number(r.gross_cents),
      feeCents: Number(r.fee_cents),
      netCents: Number(r.net_cents),
      monthlyPercent: formatPercentE4(Number(r.monthly_percent_e4)),
      // as asked for (a rejected one's installments went back); older rows: the installments they hold
      receivables: r.receivables ?? installments.get(Number(r.id)) ?? [],
      reason: r.reason,
      createdAt: r.created_at.toISOString(),
      decidedAt: r.decided_at?.toISOString() ?? null,
      paidAt: r.paid_at?.toISOString() ?? null,
    }));
  }

  private async quote(q: Queryable, accountId: number, ask: AnticipationAsk): Promise<Quote> {
    const rate = await anticipationRate(q, accountId);
    if (rate === null) throw notFound('Account not found');
    const open = await openInstallments(q, accountId, 'upTo' in ask ? ask.upTo : null);
    const eligible = await anticipableSales(
      q,
      open.map((i) => i.saleId),
      false,
    );
    const anticipable = open.filter((i) => eligible.has(i.saleId));
    const chosen = chooseInstallments(ask, anticipable);
    if (!chosen) {
      // how much can be, and why not all that is scheduled (GET /api/receivables lists every installment)
      const most = anticipable.reduce((sum, i) => sum + i.amount, 0);
      const scheduled = open.reduce((sum, i) => sum + i.amount, 0);
      throw new AppError(
        'INSUFFICIENT_BALANCE',
        `Not enough card receivables to anticipate: at most ${most} cents can be anticipated now` +
          (scheduled > most
            ? ` of the ${scheduled} cents scheduled (installments of a sale refunded, being refunded or disputed cannot be)`
            : '') +
          '; see GET /api/receivables',
      );
    }
    return quoteOf(chosen, rate, today());
  }

  /**
   * Pays a held anticipation, in one transaction: its installments locked, each still unsettled and its sale
   * still paid, unrefunded and undisputed (the sales held until commit); else it is refused.
   */
  private async payOrReject(tx: Queryable, row: AnticipationRow, decider: Decider): Promise<AnticipationRow> {
    // the sales held first, then their installments: the order a refund locks them in (sale, then installments)
    const eligible = await anticipableSales(tx, await salesOfAnticipation(tx, Number(row.id)), true);
    const held = await lockHeldInstallments(tx, Number(row.id));
    const gross = held.reduce((sum, i) => sum + i.amount, 0);
    const there =
      held.length > 0 &&
      gross === Number(row.gross_cents) &&
      held.every((i) => !i.settled && eligible.has(i.saleId));
    if (!there) return this.reject(tx, row, decider, 'receivables_unavailable');
    await settleAnticipated(tx, {
      anticipationId: Number(row.id),
      accountId: Number(row.account_id),
      grossCents: gross,
      feeCents: Number(row.fee_cents),
    });
    const paid = await closeAnticipation(tx, Number(row.id), {
      status: 'paid',
      reason: null,
      decidedBy: decider,
    });
    await this.notify(tx, paid, 'anticipation.paid');
    return paid;
  }

  private async reject(
    tx: Queryable,
    row: AnticipationRow,
    decider: Decider,
    reason: string,
  ): Promise<AnticipationRow> {
    const view = await this.viewOf(tx, row); // its installments, as they were asked for
    await releaseInstallments(tx, Number(row.id));
    const rejected = await closeAnticipation(tx, Number(row.id), {
      status: 'rejected',
      reason,
      decidedBy: decider,
    });
    await this.notify(tx, rejected, 'anticipation.rejected', view.receivables);
    return rejected;
  }

  private async notify(
    tx: Queryable,
    row: AnticipationRow,
    event: 'anticipation.paid' | 'anticipation.rejected',
    receivables?: AnticipationView['receivables'],
  ): Promise<void> {
    const view = await this.viewOf(tx, row);
    await recordNotification(tx, {
      accountId: Number(row.account_id),
      event,
      subjectType: 'anticipation',
      subjectId: Number(row.id),
      webhookBody: {
        id: view.id,
        status: view.status,
        grossCents: view.grossCents,
        feeCents: view.feeCents,
        netCents: view.netCents,
        receivables: receivables ?? view.receivables,
        reason: view.reason,
        createdAt: view.createdAt,
        paidAt: view.paidAt,
        type: 'ANTICIPATION',
      },
    });
  }
}
