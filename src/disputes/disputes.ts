import { type Actor, recordAudit } from '../audit/index.js';
import { activeUsersWithRole, rolesWith } from '../auth/index.js';
import { paidAtBank } from '../boletos/index.js';
import { lockBalances, type Posting, postEntry, reversalOf } from '../ledger/index.js';
import { type MailOutbox, queueMail, renderMail } from '../mail/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { AppError, notFound, validation } from '../platform/errors/app-error.js';
import { isUuid, type PublicId } from '../platform/ids/public-ids.js';
import type { Queue } from '../platform/jobs/queue.js';
import { formatBrl } from '../platform/money/money.js';
import { greeting } from '../platform/text/names.js';
import {
  type DisputedSale,
  lockSaleForDispute,
  loseDisputedPart,
  moveDisputedSale,
  shareOfHeld,
} from '../sales/index.js';
import { recordNotification } from '../webhooks/index.js';
import {
  closeDispute,
  type DisputeKind,
  type DisputeRow,
  type DisputeStatus,
  evidenceOf,
  findDispute,
  findDisputeByExternalId,
  insertDispute,
  insertEvidenceFile,
  listDisputes,
  lockDispute,
  lockDueForReminder,
  lockOverdue,
  markReminded,
  markUnderReview,
} from './data.js';
import { checkComplete, checkFile, checkText, type EvidencePart } from './evidence.js';
import { DISPUTE_STATUSES } from './schemas.js';
import { EFI_MED } from './source.js';
import { type DisputeView, disputeView, disputeWebhookBody } from './views.js';

/** Days the merchant has to answer (respondBy), from the opening. */
export const RESPOND_WITHIN_DAYS = 7;
export const REMIND_DAYS_BEFORE = 2;
export const DEADLINE_CHECK_EVERY_MS = 60_000;

export interface OpenDispute {
  /** The account the caller acts for; null for a notice from the acquirer or PSP, which names the sale only. */
  accountId: number | null;
  sale: PublicId;
  kind: DisputeKind;
  amountCents?: number | undefined;
  reason?: string | null | undefined;
  /** Who opened it: `sandbox`, or the adapter whose notice it is. */
  source: string;
  /** The notice's own id at its source: a notice received twice opens one dispute. */
  externalId?: string | null | undefined;
}

export type Outcome = 'won' | 'lost';

const CARD_METHODS = new Set(['CREDIT_CARD', 'DEBIT_CARD']);
/** The methods a payer may have paid by Pix: a boleto híbrido's Pix too (not one paid at a bank). */
const PIX_METHODS = new Set(['PIX', 'PIX_AUTOMATICO', 'BOLETO']);

/** The dispute's own share of the hold, a transfer between the merchant's buckets (positive: out of available). */
type HeldPart = DisputedSale['heldParts'][number];

/** A ledger target of a party's bucket: the account's, or a split sale's recipient's. */
const bucketOf = (holder: HeldPart['holder'], bucket: 'available' | 'blocked'): Posting['target'] =>
  'recipientId' in holder
    ? { recipientId: holder.recipientId, bucket }
    : { accountId: holder.accountId, bucket };

/** Whose bucket a part is: one key per party, so that parts of the same party add up. */
const partyKey = (holder: HeldPart['holder']): string =>
  'recipientId' in holder ? `r${holder.recipientId}` : `a${holder.accountId}`;

/** Parts of the same party as one. */
function merged(parts: HeldPart[]): HeldPart[] {
  const byParty = new Map<string, HeldPart>();
  for (const p of parts) {
    const known = byParty.get(partyKey(p.holder));
    if (known) known.amount += p.amount;
    else byParty.set(partyKey(p.holder), { holder: p.holder, amount: p.amount });
  }
  return [...byParty.values()];
}

/** Why a dispute lost returned money to the payer, as its refund's `reason` says it. */
function lostReason(dispute: DisputeRow, status: 'lost' | 'accepted'): string {
  const what = dispute.kind === 'med' ? 'MED' : 'chargeback';
  return status === 'accepted'
    ? `The ${what} ${dispute.uuid} was accepted by the merchant: returned to the payer`
    : `The ${what} ${dispute.uuid} was lost: returned to the payer`;
}

/**
 * Who bears a dispute's amount beyond the net (the sale's fee, which a dispute does not give back), decided at
 * its opening: the parties that answer for the sale, as they bear the rest of it (decisions.md, "Split
 * payments": a lost dispute is taken from the liable parties in proportion to their shares), each in proportion
 * to what of the net it holds, exact in cents (`shareOfHeld`); the account when no party holds any of the net.
 */
function feePartsOf(accountId: number, held: HeldPart[], cents: number): HeldPart[] {
  if (cents <= 0) return [];
  const holding = held.reduce((sum, h) => sum + h.amount, 0);
  if (holding <= 0) return [{ holder: { accountId }, amount: cents }];
  return shareOfHeld(held, cents).filter((p) => p.amount !== 0);
}

/**
 * `cents` of fee taken at a dispute's close, from the parties that held its fee at the opening (`parts`, kept on
 * the dispute), in proportion: exactly what each held when `cents` is what they held. The account's alone for a
 * dispute opened before the rule (`parts` null) or one that held none.
 */
function feeTakenBy(accountId: number, parts: HeldPart[] | null, cents: number): HeldPart[] {
  const holding = (parts ?? []).reduce((sum, h) => sum + h.amount, 0);
  if (parts === null || holding <= 0 || cents === 0) return [{ holder: { accountId }, amount: cents }];
  return shareOfHeld(parts, cents);
}

/**
 * Who carries a dispute's adjustment at its opening (its amount less what the move into the dispute status took
 * from available). `fee` is who holds the amount beyond the net (`feePartsOf`, kept on the dispute).
 *
 * A dispute of part of what is left (`partial`): `moves`, each party's move so that
 * it holds what it held before the dispute plus what losing the part takes from it (the sales module's
 * `partMovesOf`), and the fee on the part, so that the holds are what the loss will take, party by party.
 *
 * Otherwise (the whole of what is left): the fee held as `fee` says, and the rest of the adjustment (a reserve
 * the account's blocked held already) by the account.
 */
function adjustmentParts(
  accountId: number,
  dispute: { adj: number; partial: boolean; fee: HeldPart[] },
  moves: () => HeldPart[],
): HeldPart[] {
  const { adj, partial, fee } = dispute;
  if (partial) return merged([...moves(), ...fee]);
  const rest = adj - fee.reduce((sum, p) => sum + p.amount, 0);
  return merged([{ holder: { accountId }, amount: rest }, ...fee]);
}

/** Moves each part of an adjustment from its party's available to its blocked (a negative part: back). */
function adjustment(parts: HeldPart[]): Posting[] {
  return parts.flatMap((p) => [
    { target: bucketOf(p.holder, 'available'), amount: -p.amount },
    { target: bucketOf(p.holder, 'blocked'), amount: p.amount },
  ]);
}

export class Disputes {
  constructor(
    private readonly db: Db,
    private readonly queue: Queue,
    private readonly mail: MailOutbox,
    private readonly publicUrl: string,
  ) {}

  /**
   * Opens a dispute of a PAGO sale, in one transaction: the sale moves to CHARGEBACK or MED through the sales
   * module's one transition (its ledger entry, sale.chargeback), the rest of the disputed amount leaves
   * available by an entry of the dispute's own (available may go negative here, and only here), then
   * dispute.opened and the e-mails. A notice already received answers the dispute it opened.
   */
  async open(input: OpenDispute): Promise<{ dispute: DisputeRow; created: boolean }> {
    return this.db.tx(async (tx) => {
      if (input.externalId) {
        const known = await findDisputeByExternalId(tx, input.source, input.externalId);
        if (known) return { dispute: known, created: false };
      }
      const sale = await lockSaleForDispute(tx, input.sale);
      if (!sale || (input.accountId !== null && sale.accountId !== input.accountId)) {
        throw notFound('Sale not found');
      }
      if (input.kind === 'chargeback' && !CARD_METHODS.has(sale.paymentMethod)) {
        throw validation(`a chargeback disputes a card sale; this sale is ${sale.paymentMethod}`);
      }
      if (input.kind === 'med' && !PIX_METHODS.has(sale.paymentMethod)) {
        throw validation(`a MED disputes a sale paid by Pix; this sale is ${sale.paymentMethod}`);
      }
      if (input.kind === 'med' && sale.paymentMethod === 'BOLETO' && (await paidAtBank(tx, sale.id))) {
        throw validation('a MED disputes a sale paid by Pix; this boleto was paid at a bank, by its barcode');
      }
      if (sale.status !== 'PAGO') {
        throw new AppError('CONFLICT', `a sale in status ${sale.status} cannot be disputed (only PAGO)`);
      }
      // what the payer paid less the refunds made or in progress is the most a dispute can take: a notice may
      // claim more (a fee of the payer's bank, or the whole sale after a partial refund), and is capped to it
      const most = sale.disputable;
      if (most < 1) {
        throw new AppError(
          'CONFLICT',
          'this sale is refunded in full or being refunded: nothing is left to dispute',
        );
      }
      const amountCents =
        input.accountId === null ? Math.min(input.amountCents ?? most, most) : (input.amountCents ?? most);
      if (!Number.isSafeInteger(amountCents) || amountCents < 1 || amountCents > most) {
        throw validation(
          `amountCents must be a whole number of cents from 1 to what the sale has left after refunds, ${most}`,
        );
      }
      const moved = await moveDisputedSale(
        tx,
        this.queue,
        sale.id,
        input.kind === 'med' ? 'MED' : 'CHARGEBACK',
      );
      const adjustmentCents = amountCents - moved.tookFromAvailable;
      // a part of what is left: the holders keep the share of the net its loss takes, and the fee on it
      const feePartCents = amountCents < most ? amountCents - sale.netShareOf(amountCents) : 0;
      // the amount beyond the net (the fee on it) is the liable parties' (never more than the adjustment: the
      // rest of it is a reserve the account holds already)
      const feeCents =
        amountCents < most
          ? feePartCents
          : Math.max(0, Math.min(adjustmentCents, amountCents - sale.netShareOf(amountCents)));
      const feeParts = feePartsOf(sale.accountId, moved.sale.heldParts, feeCents);
      const dispute = await insertDispute(tx, {
        accountId: sale.accountId,
        saleId: sale.id,
        saleUuid: sale.uuid,
        kind: input.kind,
        amountCents,
        adjustmentCents,
        feePartCents,
        feeParts,
        reason: input.reason ?? null,
        source: input.source,
        externalId: input.externalId ?? null,
        respondByDays: RESPOND_WITHIN_DAYS,
      });
      await postEntry(tx, {
        kind: 'dispute.opened',
        refType: 'dispute',
        refId: dispute.id,
        postings: adjustment(
          adjustmentParts(
            sale.accountId,
            // as stored: what the row says the fee's holders are is what is held
            {
              adj: adjustmentCents,
              partial: amountCents < most,
              fee: dispute.fee_parts ?? [{ holder: { accountId: sale.accountId }, amount: feeCents }],
            },
            () => moved.sale.partMovesOf(amountCents),
          ),
        ),
      });
      await this.notify(tx, dispute, 'dispute.opened');
      await this.mailTeam(tx, dispute, 'opened');
      return { dispute, created: true };
    });
  }

  async viewOf(q: Queryable, d: DisputeRow): Promise<DisputeView> {
    return disputeView(d, await evidenceOf(q, [d.id]));
  }

  /** One of the account's disputes; an unknown id or another account's → NOT_FOUND. */
  async get(accountId: number, uuid: string): Promise<DisputeView> {
    const d = await findDispute(this.db, uuid);
    if (!d || Number(d.account_id) !== accountId) throw notFound('Dispute not found');
    return this.viewOf(this.db, d);
  }

  /** A page of the account's disputes, newest first. */
  async list(
    accountId: number,
    filter: { status: string | undefined; saleId?: string | undefined; limit: number; before: number | null },
  ): Promise<{ data: DisputeView[]; lastId: number | null; more: boolean }> {
    const status = filter.status === undefined || filter.status === '' ? null : filter.status;
    if (status !== null && !(DISPUTE_STATUSES as readonly string[]).includes(status)) {
      throw validation(`status must be one of ${DISPUTE_STATUSES.join(', ')}`);
    }
    const saleId = filter.saleId === undefined || filter.saleId === '' ? null : filter.saleId;
    if (saleId !== null && !isUuid(saleId)) throw validation('saleId must be a sale id (its uuid)');
    const rows = await listDisputes(this.db, accountId, {
      status: status as DisputeStatus | null,
      saleUuid: saleId?.toLowerCase() ?? null,
      before: filter.before,
      limit: filter.limit + 1,
    });
    const page = rows.slice(0, filter.limit);
    const evidence = await evidenceOf(
      this.db,
      page.map((d) => d.id),
    );
    return {
      data: page.map((d) => disputeView(d, evidence)),
      lastId: page.length > 0 ? Number(page.at(-1)!.id) : null,
      more: rows.length > filter.limit,
    };
  }

  /**
   * The acquirer's or PSP's verdict (the PSP's infraction list, the sandbox plays it). A closed dispute →
   * DISPUTE_CLOSED. A MED whose devolução the PSP made while it was open gave that money back to the payer: it is
   * lost for what that gave back whatever the verdict, read with the dispute locked (a devolução told to it the
   * moment before the verdict counts).
   */
  async decide(accountId: number | null, uuid: string, outcome: Outcome): Promise<DisputeRow> {
    return this.db.tx(async (tx) => {
      const dispute = await this.openDisputeOf(tx, accountId, uuid);
      const returned = Number(dispute.med_devolution_cents);
      if (outcome === 'won' && returned > 0) return this.close(tx, dispute, 'lost', returned);
      return this.close(tx, dispute, outcome === 'won' ? 'won' : 'lost');
    });
  }

  /**
   * Whether the account's dispute takes an answer now (open, none sent yet, before respondBy): asked before an
   * answer's body is read, so that nothing is read for a dispute that would refuse it. Unknown or another
   * account's → NOT_FOUND; answered, closed or late → DISPUTE_CLOSED.
   */
  async answerable(accountId: number, uuid: string): Promise<void> {
    const dispute = await findDispute(this.db, uuid);
    if (!dispute || Number(dispute.account_id) !== accountId) throw notFound('Dispute not found');
    if (dispute.closed_at || dispute.status !== 'needs_response') throw answered(dispute);
    await this.refuseLate(this.db, dispute);
  }

  /**
   * The merchant's answer, until respondBy: files and a text, taken part by part as they arrive, each file
   * checked and stored before the next is read (one file in memory at a time), in one transaction that holds
   * the dispute: a part refused, or the parts ending wrong, stores nothing. The dispute goes under_review and
   * awaits the acquirer's or PSP's verdict. One answer per dispute.
   */
  async respond(
    accountId: number,
    uuid: string,
    parts: AsyncIterable<EvidencePart>,
    actor: Actor,
  ): Promise<DisputeRow> {
    return this.db.tx(async (tx) => {
      const dispute = await this.openDisputeOf(tx, accountId, uuid);
      if (dispute.status !== 'needs_response') throw answered(dispute);
      await this.refuseLate(tx, dispute);
      let files = 0;
      let text: string | null = null;
      for await (const part of parts) {
        if (part.kind === 'text') text = checkText(part.text, text);
        else await insertEvidenceFile(tx, dispute.id, checkFile(part, ++files));
      }
      checkComplete(files, text);
      const underReview = await markUnderReview(tx, dispute.id, text);
      await recordAudit(tx, accountId, actor, {
        action: 'dispute.answered',
        target: `dispute:${dispute.uuid}`,
      });
      await this.forwardToPsp(tx, underReview);
      return underReview;
    });
  }

  private async refuseLate(q: Queryable, dispute: DisputeRow): Promise<void> {
    const [late] = await q.query<{ late: boolean }>('SELECT $1::timestamptz <= now() AS late', [
      dispute.respond_by,
    ]);
    if (late!.late) throw new AppError('DISPUTE_CLOSED', 'The deadline to answer this dispute has passed');
  }

  /** Disputes unanswered at respondBy are lost, as acquirers decide them; returns how many. */
  async expireOverdue(limit = 100): Promise<number> {
    return this.db.tx(async (tx) => {
      const overdue = await lockOverdue(tx, limit);
      let lost = 0;
      for (const d of overdue) {
        try {
          await this.close(tx, d, 'lost');
          lost++;
        } catch (err) {
          // refused before writing anything: its sale left the dispute status (close's check)
          if (!(err instanceof AppError) || err.code !== 'CONFLICT') throw err;
        }
      }
      return lost;
    });
  }

  /** The reminder two days before respondBy, once per dispute; returns how many disputes were reminded. */
  async remindDue(limit = 100): Promise<number> {
    return this.db.tx(async (tx) => {
      const due = await lockDueForReminder(tx, REMIND_DAYS_BEFORE, limit);
      for (const d of due) await this.mailTeam(tx, d, 'reminder');
      await markReminded(
        tx,
        due.map((d) => d.id),
      );
      return due.length;
    });
  }

  /** The merchant gives up: the dispute is lost at once, as `accepted`. */
  async accept(accountId: number, uuid: string, actor: Actor): Promise<DisputeRow> {
    return this.db.tx(async (tx) => {
      const dispute = await this.openDisputeOf(tx, accountId, uuid);
      if (dispute.status !== 'needs_response') throw answered(dispute);
      // past respondBy it is lost (the deadline job's), not the merchant's to accept: as late as an answer
      await this.refuseLate(tx, dispute);
      const accepted = await this.close(tx, dispute, 'accepted');
      await recordAudit(tx, accountId, actor, {
        action: 'dispute.accepted',
        target: `dispute:${dispute.uuid}`,
      });
      await this.forwardToPsp(tx, accepted);
      return accepted;
    });
  }

  async openDisputeOf(tx: Queryable, accountId: number | null, uuid: string): Promise<DisputeRow> {
    const dispute = await lockDispute(tx, uuid);
    if (!dispute || (accountId !== null && Number(dispute.account_id) !== accountId)) {
      throw notFound('Dispute not found');
    }
    if (dispute.closed_at) throw answered(dispute);
    return dispute;
  }

  /**
   * Closes a locked open dispute. Won: the sale returns to PAGO (its transition gives its net back) and the
   * dispute's own share returns. Lost or accepted: the disputed amount goes to the acquirer or payer for good,
   * and whatever the dispute held beyond it (a reserve the sale still held at the opening) returns to
   * available. Lost for all that was left of the sale, a MED makes it ESTORNADO (sale.refunded) and a card
   * sale stays CHARGEBACK; lost for a part of it, the sale goes back to PAGO with that part refunded
   * (sale.refunded), so that the rest can still be refunded.
   */
  async close(
    tx: Queryable,
    dispute: DisputeRow,
    outcome: 'won' | 'lost' | 'accepted',
    lostCents?: number,
  ): Promise<DisputeRow> {
    const accountId = Number(dispute.account_id);
    const held = dispute.kind === 'med' ? 'MED' : 'CHARGEBACK';
    const now = await lockSaleForDispute(tx, { kind: 'numeric', id: Number(dispute.sale_id) });
    // the opening's adjustment undone exactly as it was posted, whatever moved on the sale since (a refund in
    // flight when the dispute opened, made during it, changes the shares the opening was computed from)
    const reverted = await reversalOf(tx, 'dispute.opened', 'dispute', Number(dispute.id));
    // refunded in full while the dispute was open (a devolução made at the PSP, a refund in flight): the money
    // went back to the payer, so the dispute is lost whatever the verdict
    const status = now?.status === 'ESTORNADO' && outcome === 'won' ? 'lost' : outcome;
    if (now?.status === 'ESTORNADO') {
      // the sale's money went back with its refunds, so the outcome moves none of it; the opening's adjustment is
      // undone and the dispute closed, never left open for good (its outcome refused, its deadline never met)
      const closed = await closeDispute(tx, dispute.id, status, status === 'won' ? null : 0);
      if (reverted.length > 0) {
        await postEntry(tx, {
          kind: `dispute.${status}`,
          refType: 'dispute',
          refId: dispute.id,
          postings: reverted,
        });
      }
      await this.notify(tx, closed, status === 'won' ? 'dispute.won' : 'dispute.lost');
      return closed;
    }
    // (a status report cannot take a sale with an open dispute out of its dispute status: disputes/rules.ts)
    if (now?.status !== held) {
      throw new AppError('CONFLICT', `the disputed sale is ${now?.status ?? 'gone'}, no longer ${held}`);
    }
    // a loss takes at most what the sale has left: a refund made during the dispute (a devolução made at the
    // PSP) went back to the payer already, and the dispute's amount again would take it twice
    const amount =
      status === 'won'
        ? Number(dispute.amount_cents)
        : Math.min(lostCents ?? Number(dispute.amount_cents), Number(dispute.amount_cents), now.disputable);
    if (amount <= 0) {
      // nothing of the sale left to lose, its refunds taking it while one is still in progress: no loss of 0 is
      // posted (it would give the processor's share back); the dispute waits for that refund's end
      throw new AppError(
        'CONFLICT',
        'nothing of the disputed sale is left to lose: its refunds took it (one still in progress)',
      );
    }
    let postings: Posting[];
    const fee = dispute.fee_parts;
    // the close posts several entries (the sale's move, then the dispute's own), whose rows do not come in one
    // order across them: every party's balance rows are locked first, in the ledger's order, as one entry would
    await lockBalances(tx, [
      { accountId },
      ...now.heldParts.map((h) => h.holder),
      ...(fee ?? []).map((h) => h.holder),
      ...reverted.flatMap((p) => ('system' in p.target ? [] : [p.target])),
    ]);
    // the amount beyond the net leaves the available of the parties that held it at the opening
    const feeTaken = (cents: number): Posting[] =>
      feeTakenBy(accountId, fee, cents).map((p) => ({
        target: bucketOf(p.holder, 'available'),
        amount: -p.amount,
      }));
    if (status !== 'won' && amount < now.disputable) {
      // lost in part: the sale takes the part lost as refunded (its share of the net, from the liable parties'
      // blocked) and goes back to PAGO, freeing the rest; the liable parties pay the fee on the part lost
      const { netTaken } = await loseDisputedPart(tx, this.queue, Number(dispute.sale_id), amount, {
        fee: (cents) => feeTakenBy(accountId, fee, cents),
        reason: lostReason(dispute, status),
      });
      postings = [
        ...reverted,
        { target: { system: 'processor' }, amount: amount - netTaken },
        ...feeTaken(amount - netTaken),
      ];
    } else if (status === 'won') {
      await moveDisputedSale(tx, this.queue, Number(dispute.sale_id), 'PAGO');
      postings = reverted;
    } else if (dispute.kind === 'med') {
      // the sale's transition takes what its dispute status held (now.heldNet) out of blocked to the payer
      await moveDisputedSale(tx, this.queue, Number(dispute.sale_id), 'ESTORNADO', {
        amount,
        fee: feeTakenBy(accountId, fee, amount - now.heldNet),
        reason: lostReason(dispute, status),
      });
      postings = [
        ...reverted,
        { target: { system: 'processor' }, amount: amount - now.heldNet },
        ...feeTaken(amount - now.heldNet),
      ];
    } else {
      // a card sale stays CHARGEBACK: the dispute takes what it holds out of blocked itself
      // (each party's part of it from its own blocked: a split sale's liable recipients too)
      postings = [
        ...now.heldParts.map((h): Posting => ({ target: bucketOf(h.holder, 'blocked'), amount: -h.amount })),
        ...reverted,
        { target: { system: 'processor' }, amount },
        ...feeTaken(amount - now.heldNet),
      ];
    }
    const closed = await closeDispute(tx, dispute.id, status, status === 'won' ? null : amount);
    await postEntry(tx, { kind: `dispute.${status}`, refType: 'dispute', refId: dispute.id, postings });
    await this.notify(tx, closed, status === 'won' ? 'dispute.won' : 'dispute.lost');
    return closed;
  }

  /** The merchant's answer or acceptance of a MED the PSP's notice opened goes on to the PSP (disputes.defend). */
  private async forwardToPsp(tx: Queryable, d: DisputeRow): Promise<void> {
    if (d.source === EFI_MED && d.external_id) {
      await this.queue.send(tx, 'disputes.defend', { disputeId: Number(d.id) });
    }
  }

  async notify(tx: Queryable, d: DisputeRow, event: 'dispute.opened' | 'dispute.won' | 'dispute.lost') {
    await recordNotification(tx, {
      accountId: Number(d.account_id),
      event,
      subjectType: 'dispute',
      subjectId: Number(d.id),
      webhookBody: disputeWebhookBody(d, await evidenceOf(tx, [d.id])),
    });
  }

  /**
   * "Contestação aberta" or the reminder (sent two days before respondBy, or at once when less is left), to every
   * active user who may answer it; the reminder's subject names the day it ends, not "in two days".
   */
  async mailTeam(tx: Queryable, d: DisputeRow, why: 'opened' | 'reminder'): Promise<void> {
    const view = disputeView(d, []);
    const what = d.kind === 'med' ? 'uma MED (mediação Pix)' : 'um chargeback';
    const deadline = d.respond_by.toLocaleString('pt-BR', { timeZone: 'America/Sao_Paulo' });
    const users = await activeUsersWithRole(tx, Number(d.account_id), rolesWith('disputes.respond'));
    for (const user of users) {
      await queueMail(tx, this.mail, {
        cause: `dispute-${why}:${view.id}`,
        to: user.email,
        ...renderMail({
          subject:
            why === 'opened'
              ? `Contestação aberta: ${formatBrl(view.amountCents)} bloqueados`
              : `Contestação de ${formatBrl(view.amountCents)}: o prazo de resposta termina em ${deadline.slice(0, 10)}`,
          paragraphs: [
            greeting(user.name),
            why === 'opened'
              ? `Uma venda recebeu ${what} de ${formatBrl(view.amountCents)}. O valor saiu do saldo disponível até a decisão.`
              : `A contestação (${what}) de ${formatBrl(view.amountCents)} ainda não foi respondida.`,
            `Envie as provas (PDF, PNG ou JPEG) ou aceite a contestação até ${deadline} (horário de Brasília). Sem resposta até lá, a contestação é perdida.`,
          ],
          action: { label: 'Ver a contestação', url: `${this.publicUrl}/#/contestacoes/${view.id}` },
          footnote: 'Você recebe este e-mail porque pode responder contestações nesta conta.',
        }),
      });
    }
  }
}

function answered(d: DisputeRow): AppError {
  return new AppError(
    'DISPUTE_CLOSED',
    d.closed_at
      ? `This dispute is ${d.status}: it is closed`
      : `This dispute is ${d.status}: it takes no more answers`,
  );
}
