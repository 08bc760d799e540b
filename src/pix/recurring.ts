import { type PixApiClient, PspError } from '../payment-standards/index.js';
import type { Db } from '../platform/db/db.js';
import { inSavepoint } from '../platform/db/savepoint.js';
import { AppError } from '../platform/errors/app-error.js';
import type { Queue } from '../platform/jobs/queue.js';
import { parseReais } from '../platform/money/money.js';
import type { SaleSettler } from '../sales/index.js';
import { findSaleByProcessorRef, lockSale, moveSale, recordOwedBack, saleFees } from '../sales/index.js';
import {
  chargeCycle,
  countCycle,
  lockRecurrence,
  type RecurrenceRow,
  recordMandate,
} from './automatico/recurrences.js';
import type { WarnLog } from './devolucoes.js';
import { type Pix, settleRefunds } from './received.js';
import { BCB_PROCESSOR } from './txid.js';

/** The standard's RecCompleta (GET /rec/{idRec}), as far as the gateway reads it. */
interface Rec {
  idRec: string;
  status: 'CRIADA' | 'APROVADA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';
  vinculo: { contrato: string; devedor: { cpf?: string; cnpj?: string; nome: string } };
  calendario: { dataInicial: string };
  valor?: { valorRec?: string };
  ativacao?: Ativacao;
}

/** RecAtivacao: the schema puts tipoJornada here; the yaml's own example recResponse1 nests it in dadosJornada. */
interface Ativacao {
  tipoJornada?: string;
  dadosJornada?: { tipoJornada?: string };
}

/** The standard's CobRCompleta (GET /cobr/{txid}), as far as the gateway reads it. */
export interface CobR {
  idRec: string;
  txid: string;
  status: 'CRIADA' | 'ATIVA' | 'CONCLUIDA' | 'EXPIRADA' | 'REJEITADA' | 'CANCELADA';
  valor: { original: string };
  pix?: Omit<Pix, 'txid'>[];
}

/**
 * The standard's idRec and txid are letters and digits: a callback id that is not is refused without a PSP
 * call (no path tricks, no encoding error failing the other entries).
 */
const PLAIN_ID = /^[a-zA-Z0-9]{1,64}$/;

export interface RecurringDeps {
  db: Db;
  queue: Queue;
  settler: SaleSettler;
  client: PixApiClient;
  /** PIX_AUTOMATICO_ACCOUNT: whose mandates the PSP's are; null: none is recorded. */
  accountId: number | null;
  /** Where a partial devolução the gateway did not request is reported. */
  log?: WarnLog;
}

export type RecOutcome = 'recorded' | 'known' | 'not_confirmed' | 'not_approved' | 'no_account' | 'refused';
export type CobrOutcome =
  | 'refused'
  | 'credited'
  | 'duplicate'
  | 'not_confirmed'
  | 'not_paid'
  | 'not_credited'
  | 'refund_seen'
  | 'ended';

/**
 * Mandates a `{webhookUrl}/rec` callback named. The callback is unsigned, so each mandate is read back from
 * the PSP (GET /rec/{idRec}); one the PSP reports APROVADA becomes a recurrence of the merchant of record.
 */
export async function handleNotifiedRecs(deps: RecurringDeps, notified: { idRec: string }[]) {
  const outcomes: RecOutcome[] = [];
  for (const item of notified) {
    if (!PLAIN_ID.test(item.idRec)) outcomes.push('refused');
    else outcomes.push((await syncMandate(deps, item.idRec)).outcome);
  }
  return outcomes;
}

async function syncMandate(
  deps: RecurringDeps,
  idRec: string,
): Promise<{ outcome: RecOutcome; recurrence?: RecurrenceRow }> {
  const res = await deps.client.call<Rec>('GET', `/rec/${encodeURIComponent(idRec)}`);
  if (res.status === 404) return { outcome: 'not_confirmed' };
  if (res.status !== 200) throw new PspError(`GET /rec answered ${res.status}`, res.status);
  const rec = res.body;
  if (rec.status !== 'APROVADA') return { outcome: 'not_approved' };
  if (deps.accountId === null) return { outcome: 'no_account' };
  const devedor = rec.vinculo.devedor;
  const { recurrence, created } = await recordMandate(deps.db, {
    idRec: rec.idRec,
    accountId: deps.accountId,
    contrato: rec.vinculo.contrato,
    journey: journeyOf(rec.ativacao),
    amount: rec.valor?.valorRec ? parseReais(rec.valor.valorRec) : null,
    dataInicial: rec.calendario.dataInicial,
    // the standard names the payer and its document only: no email or phone to show
    customer: { name: devedor.nome, email: '', document: devedor.cpf ?? devedor.cnpj ?? '', phone: '' },
    processor: BCB_PROCESSOR,
  });
  return { outcome: created ? 'recorded' : 'known', recurrence };
}

/**
 * JORNADA_1..4 → 1..4, read where the schema puts it or where the yaml's example does; a journey the PSP
 * leaves undefined (AGUARDANDO_DEFINICAO, absent) counts as 1 (authorized, nothing paid with it).
 */
export function journeyOf(ativacao: Ativacao | undefined): number {
  const tipo = ativacao?.tipoJornada ?? ativacao?.dadosJornada?.tipoJornada ?? '';
  return Number(/^JORNADA_([1-4])$/.exec(tipo)?.[1] ?? 1);
}

/**
 * Recurring charges a `{webhookUrl}/cobr` callback named, each read back (GET /cobr/{txid}). One the PSP
 * reports CONCLUIDA, with its Pix, pays its cycle: the sale the gateway scheduled it for (a subscription's), or a
 * new PIX_AUTOMATICO sale of its mandate's recurrence; a refund of that Pix reported DEVOLVIDO makes the sale
 * ESTORNADO. One the PSP reports REJEITADA, EXPIRADA or CANCELADA ends the sale scheduled for it.
 */
export async function handleNotifiedCobrs(deps: RecurringDeps, notified: { txid: string }[]) {
  const outcomes: CobrOutcome[] = [];
  for (const item of notified) {
    if (!PLAIN_ID.test(item.txid)) {
      outcomes.push('refused');
      continue;
    }
    const res = await deps.client.call<CobR>('GET', `/cobr/${item.txid}`);
    if (res.status === 404) {
      outcomes.push('not_confirmed');
      continue;
    }
    if (res.status !== 200) throw new PspError(`GET /cobr answered ${res.status}`, res.status);
    const cobr = res.body;
    const pix = cobr.pix ?? [];
    if (ENDED.has(cobr.status)) {
      outcomes.push(await endScheduledCycle(deps, cobr));
      continue;
    }
    if (cobr.status !== 'CONCLUIDA' || pix.length === 0) {
      outcomes.push('not_paid');
      continue;
    }
    // a charge of a mandate whose own callback never came: the mandate is read back first
    const known = await deps.db.query('SELECT 1 FROM recurrences WHERE id_rec = $1', [cobr.idRec]);
    const mandate = known.length > 0 ? null : await syncMandate(deps, cobr.idRec);
    for (const p of pix) {
      // a refund of ours the PSP reports DEVOLVIDO on the cycle's Pix: the sale becomes ESTORNADO, as for charges
      const refund = await settleRefunds(deps.db, deps.settler, { ...p, txid: cobr.txid }, deps.log);
      outcomes.push(refund ?? (await creditCycle(deps, cobr, p, mandate?.outcome)));
    }
  }
  return outcomes;
}

/** What the one admission answers a sale it refuses (sales/create.ts: standing first, then the charge's checks). */
const ADMISSION_REFUSALS = new Set(['ACCOUNT_SUSPENDED', 'ACCOUNT_NOT_ACTIVE', 'VALIDATION_ERROR']);

/** The standard's end states of a recurring charge that no Pix paid. */
const ENDED = new Set<CobR['status']>(['REJEITADA', 'EXPIRADA', 'CANCELADA']);

/**
 * A scheduled cycle the PSP reports not debited: its sale, still PENDENTE, becomes FALHA (refused by the payer's
 * bank) or CANCELADO (expired, cancelled). A charge the gateway did not schedule has no sale to end.
 */
export async function endScheduledCycle(
  deps: { db: Db; queue: Queue },
  cobr: Pick<CobR, 'txid' | 'status'>,
): Promise<CobrOutcome> {
  return deps.db.tx(async (tx) => {
    const found = await findSaleByProcessorRef(tx, BCB_PROCESSOR, cobr.txid);
    const sale = found && (await lockSale(tx, found.id));
    if (sale?.status !== 'PENDENTE' || sale.payment_method !== 'PIX_AUTOMATICO') return 'not_paid';
    await moveSale(tx, deps.queue, sale.id, cobr.status === 'REJEITADA' ? 'FALHA' : 'CANCELADO');
    return 'ended';
  });
}

/**
 * Records the Pix that paid a cycle once (by end-to-end id, beside the received Pix of charges) and pays the
 * cycle when its amount is the charge's and the cycle is not paid yet: the sale scheduled for it moves to PAGO,
 * or, for a cycle the PSP charged on its own, a new sale is made. Otherwise it is kept with the reason and
 * credits nothing.
 */
export async function creditCycle(
  deps: { db: Db; queue: Queue },
  cobr: Pick<CobR, 'txid' | 'idRec' | 'valor'>,
  pix: { endToEndId: string; valor: string },
  mandate?: RecOutcome,
): Promise<CobrOutcome> {
  const amount = parseReais(pix.valor) ?? -1;
  const charge = parseReais(cobr.valor.original) ?? -1;
  return deps.db.tx(async (tx) => {
    const claimed = await tx.query(
      `INSERT INTO bcb_received_pix (e2eid, txid, amount, credited) VALUES ($1, $2, $3, false)
       ON CONFLICT DO NOTHING RETURNING 1`,
      [pix.endToEndId, cobr.txid, amount],
    );
    if (claimed.length === 0) return 'duplicate';
    const rec = await lockRecurrence(tx, cobr.idRec);
    const found = await findSaleByProcessorRef(tx, BCB_PROCESSOR, cobr.txid);
    const scheduled = found && (await lockSale(tx, found.id));
    let reason: string | null = null;
    if (!rec || rec.processor !== BCB_PROCESSOR) {
      reason = `no recurrence of the PSP has idRec ${cobr.idRec}${mandate ? ` (mandate ${mandate})` : ''}`;
    } else if (amount < 0 || amount !== charge) {
      // -1: an amount that is not a reais text (on either side) never matches, even the other's -1
      reason = `paid ${pix.valor}, the charge is ${charge} cents`;
    } else if (scheduled && scheduled.status !== 'PENDENTE') {
      reason = `the cycle's sale is ${scheduled.status}`;
    } else if (scheduled && Number(scheduled.amount) !== amount) {
      reason = `paid ${pix.valor}, the cycle's sale is ${scheduled.amount} cents`;
    } else if (!scheduled && !(await fits(tx, rec.account_id, amount))) {
      reason = `${amount} cents do not cover the sale fee`;
    }
    let saleId: number | null = null;
    if (!reason && scheduled) {
      await countCycle(tx, rec!.id);
      saleId = (await moveSale(tx, deps.queue, scheduled.id, 'PAGO')).sale.id;
    } else if (!reason) {
      // a cycle the PSP charged on its own is a new sale, through the one admission (which refuses an account
      // suspended, waiting for review or closed)
      try {
        const sale = await inSavepoint(tx, (q) =>
          chargeCycle(q, deps.queue, rec!, {
            amount,
            processor: BCB_PROCESSOR,
            details: {
              externalTransactionId: cobr.txid,
              pixKey: null,
              cardLastFour: null,
              cardBrand: null,
              boletoCode: null,
            },
          }),
        );
        saleId = sale.id;
      } catch (err) {
        // only the admission's own refusals (the account's standing, the charge's checks) are the cycle's
        // answer; anything else (the database lost) fails the callback, which the PSP sends again
        if (!(err instanceof AppError && ADMISSION_REFUSALS.has(err.code))) throw err;
        reason = `the admission refused the cycle: ${err.message}`;
      }
    }
    // a cycle of a mandate the gateway knows, debited and not credited (another amount, a sale already closed
    // or paid, a fee it cannot cover, the admission's refusal): its payer is owed it back, recorded now with
    // what the gateway knows of it (a run would only see a txid naming no charge)
    if (reason && rec && rec.processor === BCB_PROCESSOR && amount >= 0) {
      await recordOwedBack(tx, {
        reference: pix.endToEndId,
        txid: cobr.txid,
        amount,
        detail: `Pix ${pix.endToEndId} of ${pix.valor}, a cycle of mandate ${cobr.idRec} (contrato ${rec.contrato}, account ${rec.account_id}), not credited: ${reason}`,
      });
    }
    await tx.query('UPDATE bcb_received_pix SET sale_id = $2, credited = $3, reason = $4 WHERE e2eid = $1', [
      pix.endToEndId,
      saleId,
      saleId !== null,
      reason,
    ]);
    return saleId !== null ? 'credited' : 'not_credited';
  });
}

function fits(tx: Parameters<typeof saleFees>[0], accountId: number, amount: number): Promise<boolean> {
  return saleFees(tx, accountId, amount, { paymentMethod: 'PIX_AUTOMATICO' }).then(
    () => true,
    () => false,
  );
}
