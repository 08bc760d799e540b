import { randomInt } from 'node:crypto';
import { type PixApiClient, PspError } from '../payment-standards/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { parseReais } from '../platform/money/money.js';
import type { SaleSettler } from '../sales/index.js';
import {
  completeRefund,
  failLocked,
  lockSale,
  RefundNotMade,
  recordRefundMade,
  refundInProgress,
  refundNotDone,
  saleUuids,
  setRefundUnderWayRule,
} from '../sales/index.js';

/** Where a devolução the gateway did not request is reported (the webhook's request log, the worker's). */
export interface WarnLog {
  warn(obj: object, msg: string): void;
}

export type DevolucaoStatus = 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';

/** A devolução as the PSP reports it (PUT or GET /pix/{e2eid}/devolucao/{id}, or inside a Pix). */
export interface ReportedDevolucao {
  id: string;
  valor?: string;
  /** ORIGINAL, RETIRADA, MED_OPERACIONAL or MED_FRAUDE: the last two are a MED's end (the standard's `natureza`). */
  natureza?: string;
  status: DevolucaoStatus | string;
}

/**
 * Another module's rule on a MED devolução (natureza MED_*) of a sale (disputes/rules.ts): `tell`, an SQL statement
 * on the sale `$1` and the amount `$2`, answering one row `{told}` when the devolução is the end of a dispute of
 * the sale (whose outcome moves that money: never taken for a refund as well), with the cents of it the dispute
 * takes, and no row when it is no dispute's; the rest, beyond the dispute, is a refund of its own.
 */
export interface MedDevolucaoRule {
  tell: string;
}

let medDevolucaoRule: MedDevolucaoRule | null = null;

export function setMedDevolucaoRule(rule: MedDevolucaoRule): void {
  medDevolucaoRule = rule;
}

/**
 * A MED devolução of a sale whose MED dispute the gateway knows is that dispute's end: the part of it the
 * dispute takes is told to it (the rule's statement answers how much); null when it is no dispute's.
 */
async function toldToItsDispute(
  tx: Queryable,
  saleId: number,
  dev: ReportedDevolucao,
  amount: number,
): Promise<number | null> {
  const rule = medDevolucaoRule;
  if (!dev.natureza?.startsWith('MED_') || !rule) return null;
  const [told] = await tx.query<{ told: string | number }>(rule.tell, [saleId, amount]);
  return told ? Number(told.told) : null;
}

const ID_CHARACTERS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A new refund attempt's devolução id (the standard's `[a-zA-Z0-9]{1,35}`): `D` and 34 random characters. Never
 * one anybody can tell in advance: a devolução made at the PSP under the id the gateway was about to use would
 * be answered to the gateway's PUT as its own (another amount taken for its refund), or would collide with it
 * on every attempt. Stored before it is sent, so a repeat of the attempt sends the same id.
 */
export function newDevolucaoId(): string {
  let id = 'D';
  for (let i = 0; i < 34; i++) id += ID_CHARACTERS[randomInt(ID_CHARACTERS.length)];
  return id;
}

/**
 * A devolução the PSP reports under one of the gateway's ids is that attempt only for the amount it asked for:
 * another amount under its id (a PSP's mistake) is never taken for its refund. The attempt stays in progress,
 * its money held, and each report is logged for someone to look at. Null when it matches (or states no amount).
 */
export function otherAmount(dev: ReportedDevolucao, asked: number): string | null {
  if (dev.valor === undefined) return null;
  const reported = parseReais(dev.valor);
  return reported === asked
    ? null
    : `the PSP reports devolução ${dev.id} of "${dev.valor}" where the gateway asked ${asked} cents under that id: not taken for its refund, which stays in progress (its money held)`;
}

/**
 * The attempt a refund uses (about to be sent): its latest, unless it ended NAO_REALIZADO, then a new one, its id
 * numbered after every attempt of the sale. Claimed under the sale's row lock, and only for a refund still in
 * progress (its money held): concurrent requests for one refund agree on one attempt, and the attempts of a
 * sale's several refunds never share an id.
 */
export async function refundAttempt(
  db: Db,
  sale: { id: number; uuid: string },
  refund: { id: number; amount: number },
  e2eid: string,
): Promise<{ id: string; status: DevolucaoStatus; amount: number }> {
  return db.tx(async (tx) => {
    const locked = await lockSale(tx, sale.id);
    if (!locked) throw new RefundNotMade('the sale is gone', null);
    const [last] = await tx.query<{ id: string; status: DevolucaoStatus; amount: number }>(
      `SELECT id, status, amount FROM bcb_devolucoes WHERE refund_id = $1 AND requested
        ORDER BY attempt DESC LIMIT 1`,
      [refund.id],
    );
    if (last?.status === 'DEVOLVIDO') return last;
    if (!(await refundInProgress(tx, refund.id)))
      throw new RefundNotMade('the refund is no longer in progress', null);
    if (last?.status === 'EM_PROCESSAMENTO') {
      await tx.query(
        'UPDATE bcb_devolucoes SET sent_at = now(), unknown_since = NULL, unknown_checked_at = NULL WHERE e2eid = $1 AND id = $2',
        [e2eid, last.id],
      );
      return last;
    }
    const [{ attempt }] = (await tx.query<{ attempt: number }>(
      'SELECT COALESCE(max(attempt), 0) + 1 AS attempt FROM bcb_devolucoes WHERE sale_id = $1 AND requested',
      [sale.id],
    )) as [{ attempt: number }];
    const id = newDevolucaoId();
    await tx.query(
      `INSERT INTO bcb_devolucoes (e2eid, id, sale_id, amount, requested, attempt, status, refund_id)
       VALUES ($1, $2, $3, $4, true, $5, 'EM_PROCESSAMENTO', $6)`,
      [e2eid, id, sale.id, refund.amount, attempt, refund.id],
    );
    return { id, status: 'EM_PROCESSAMENTO', amount: refund.amount };
  });
}

/** The PSP answered for an attempt (its PUT, or a read-back): it has it, and it is never taken for lost. */
export async function acknowledge(db: Queryable, e2eid: string, id: string): Promise<void> {
  await db.query(
    'UPDATE bcb_devolucoes SET acknowledged = true WHERE e2eid = $1 AND id = $2 AND NOT acknowledged',
    [e2eid, id],
  );
}

/**
 * An in-progress attempt takes the final status the PSP reports (once: a final status is never changed).
 * Its refund when this report is the one that ended it.
 */
export async function recordFinalStatus(
  db: Queryable,
  e2eid: string,
  dev: ReportedDevolucao,
): Promise<{ refundId: number } | null> {
  if (dev.status !== 'DEVOLVIDO' && dev.status !== 'NAO_REALIZADO') return null;
  const [ended] = await db.query<{ refund_id: number }>(
    `UPDATE bcb_devolucoes SET status = $3, updated_at = now()
      WHERE e2eid = $1 AND id = $2 AND status = 'EM_PROCESSAMENTO' RETURNING refund_id`,
    [e2eid, dev.id, dev.status],
  );
  return ended ? { refundId: ended.refund_id } : null;
}

/**
 * A devolução of a sale's Pix the PSP reported (read back): one of our attempts takes its final status; DEVOLVIDO
 * makes its refund (once: the sale's refunded amount grows, or the sale becomes ESTORNADO when that was all of
 * it). Returns false when the devolução is not one the gateway requested.
 */
export async function applyRequestedDevolucao(
  db: Db,
  settler: SaleSettler,
  sale: { id: number; uuid: string },
  e2eid: string,
  dev: ReportedDevolucao,
  log?: WarnLog,
): Promise<boolean> {
  const [ours] = await db.query<{ status: DevolucaoStatus; refund_id: number; amount: number }>(
    'SELECT status, refund_id, amount FROM bcb_devolucoes WHERE e2eid = $1 AND id = $2 AND requested',
    [e2eid, dev.id],
  );
  if (!ours) return false;
  const mismatch = otherAmount(dev, Number(ours.amount));
  if (mismatch) {
    // a webhook's report is logged; a read-back's is the worker's round failure (logged by the worker)
    if (!log) throw new PspError(mismatch, 200);
    log.warn({ sale: sale.uuid, e2eid, devolucao: dev.id }, mismatch);
    return true;
  }
  await endAttempt(db, sale.id, e2eid, dev);
  if (dev.status === 'DEVOLVIDO') {
    if (ours.status === 'NAO_REALIZADO') {
      // its hold was given back: the refund is taken from available, and may leave the merchant a debt
      log?.warn(
        { sale: sale.uuid, e2eid, devolucao: dev.id },
        'a devolução the gateway had taken for not made was made: the refund is taken from available',
      );
    }
    await completeRefund(db, settler.queue, ours.refund_id);
  }
  return true;
}

/**
 * Records the final status the PSP reports for one of the sale's attempts; when this report ends it as
 * NAO_REALIZADO, its refund ends not made and the money held for it is the merchant's again. A report of an
 * attempt that had already ended (the PSP repeats its webhooks, listing every devolução of the Pix) changes
 * nothing.
 */
export async function endAttempt(
  db: Db,
  saleId: number,
  e2eid: string,
  dev: ReportedDevolucao,
): Promise<void> {
  await db.tx(async (tx) => {
    // locked first, as every refund decision: a retry claiming the next attempt waits
    const sale = await lockSale(tx, saleId);
    const ended = await recordFinalStatus(tx, e2eid, dev);
    if (sale && ended && dev.status === 'NAO_REALIZADO') await failLocked(tx, sale, ended.refundId);
  });
}

/**
 * A devolução of a credited Pix that the gateway did not request (made at the PSP, or by the payer's bank): kept
 * in `bcb_devolucoes` (requested = false). DEVOLVIDO, the first time it is reported so, it is a refund made of
 * what it gave back (at most what was left of the sale): the sale's refunded amount grows, with a refund
 * listed (reason MADE_AT_THE_PROCESSOR, in its `sale.refunded`), and the one that completes what the payer paid
 * makes it ESTORNADO; beyond what was left, nothing more is recorded and the excess is logged. A MED's devolução
 * of a sale whose MED dispute the gateway knows is that dispute's end, up to what the dispute holds: its
 * outcome moves that money, once; what it gave back beyond that is a refund made, as above. Logged at warn
 * (decisions.md).
 */
export async function applyUnrequestedDevolucao(
  db: Db,
  settler: SaleSettler,
  sale: { id: number; uuid: string; status: string; externalTransactionId: string },
  e2eid: string,
  dev: ReportedDevolucao,
  log?: WarnLog,
): Promise<boolean> {
  if (dev.status !== 'EM_PROCESSAMENTO' && dev.status !== 'DEVOLVIDO' && dev.status !== 'NAO_REALIZADO') {
    return false;
  }
  const [pix] = await db.query<{ amount: number; credited: boolean; sale_id: number | null }>(
    'SELECT amount, credited, sale_id FROM bcb_received_pix WHERE e2eid = $1',
    [e2eid],
  );
  if (!pix || pix.sale_id !== sale.id) return false; // not a Pix recorded for this sale
  const amount = parseReais(dev.valor ?? '') ?? -1;
  // one transaction: the report recorded and what it moves, all or nothing (a crash between them once left a
  // devolução recorded as seen and its money never taken, since a repeated report changes nothing)
  const outcome = await db.tx(async (tx) => {
    // inserted once; its status only moves on from EM_PROCESSAMENTO: `changed` is true the first time only
    const changed = await tx.query(
      `INSERT INTO bcb_devolucoes (e2eid, id, sale_id, amount, requested, status)
       VALUES ($1, $2, $3, $4, false, $5)
       ON CONFLICT (e2eid, id) DO UPDATE SET status = EXCLUDED.status, updated_at = now()
         WHERE NOT bcb_devolucoes.requested AND bcb_devolucoes.status = 'EM_PROCESSAMENTO'
           AND EXCLUDED.status <> 'EM_PROCESSAMENTO'
       RETURNING 1`,
      [e2eid, dev.id, sale.id, amount, dev.status],
    );
    if (dev.status !== 'DEVOLVIDO' || changed.length === 0 || !pix.credited || amount <= 0) return null;
    // a MED's devolução is its dispute's up to what the dispute holds; beyond it, a refund of its own
    const told = await toldToItsDispute(tx, sale.id, dev, amount);
    const beyond = amount - (told ?? 0);
    const recorded = beyond > 0 ? await recordRefundMade(tx, settler.queue, sale.id, beyond) : 0;
    return { told, beyond, recorded };
  });
  if (!outcome) return true;
  const { told, beyond, recorded } = outcome;
  const where = { sale: sale.uuid, e2eid, devolucao: dev.id, amount, pixAmount: pix.amount };
  if (told !== null) {
    log?.warn(
      { ...where, natureza: dev.natureza, told, recorded },
      beyond === 0
        ? "a MED's devolução the gateway did not request: its dispute's outcome moves the money, not a refund"
        : "a MED's devolução the gateway did not request, beyond its dispute's amount: the dispute's outcome moves its amount, the rest recorded as a refund of the sale",
    );
    return true;
  }
  log?.warn(
    { ...where, recorded },
    recorded === amount
      ? 'devolução the gateway did not request: recorded as a refund of the sale'
      : recorded > 0
        ? 'devolução the gateway did not request, beyond what was left of the sale to refund: recorded for what was left'
        : 'devolução the gateway did not request, of a sale with nothing left to refund: nothing recorded',
  );
  return true;
}

/**
 * Installs the pix module's rule in the sales module (runtime.ts and the CLI, once per process): a refund with
 * a devolução in progress, or made (DEVOLVIDO) before its refund caught up (a crash between the two), is under
 * way and never ended as not made meanwhile.
 */
export function installPixRules(): void {
  setRefundUnderWayRule(`EXISTS (SELECT 1 FROM bcb_devolucoes d WHERE d.refund_id = r.id AND d.requested
                                   AND d.status IN ('EM_PROCESSAMENTO', 'DEVOLVIDO'))`);
}

/** How often in-progress devoluções are read back from the PSP (started with the workers). */
export const DEVOLUCAO_CHECK_EVERY_MS = 30_000;
/** How long an attempt the PSP answers 404 for may still be on its way before it counts as never made. */
export const UNKNOWN_ATTEMPT_GRACE_MS = 10 * 60_000;

/**
 * The PSP's callback for a devolução reaching its final status may never come: the gateway's in-progress
 * attempts are read back (GET /pix/{e2eid}/devolucao/{id}), 100 a round, least recently checked first.
 * DEVOLVIDO → its refund is made (once, as from a callback); NAO_REALIZADO → the refund ends not made; never
 * acknowledged and answered nothing but 404 for the 10 minutes since it was last sent → NAO_REALIZADO (never
 * received). A read-back that fails puts its attempt after the others; a PSP that cannot be reached ends the
 * round (thrown, logged by the worker). Returns how many ended.
 */
export async function checkDevolucoes(db: Db, settler: SaleSettler, client: PixApiClient): Promise<number> {
  const attempts = await db.query<{ e2eid: string; id: string; sale_id: string }>(
    `SELECT e2eid, id, sale_id FROM bcb_devolucoes
      WHERE requested AND status = 'EM_PROCESSAMENTO' AND sale_id IS NOT NULL
      ORDER BY updated_at LIMIT 100`,
  );
  const uuids = await saleUuids(db, [...new Set(attempts.map((a) => Number(a.sale_id)))]);
  const rows: InProgress[] = attempts.flatMap((a) => {
    const uuid = uuids.get(Number(a.sale_id));
    return uuid ? [{ e2eid: a.e2eid, id: a.id, sale_id: Number(a.sale_id), uuid }] : [];
  });
  // first, and whatever the read-backs below meet: attempts made whose refund a crash left behind
  let ended = await finishMadeRefunds(db, settler);
  let failure: unknown = null;
  for (const row of rows) {
    try {
      if (await readBack(db, settler, client, row)) ended++;
    } catch (err) {
      // this one goes after the others next round; a PSP that cannot be reached ends this round, anything
      // else (an answer that is not a devolução, a failure while applying one) is thrown once the round is done
      await touch(db, row.e2eid, row.id, false);
      if (err instanceof PspError && err.status === null) throw err;
      failure ??= err;
    }
  }
  if (failure) throw failure;
  return ended;
}

type InProgress = { e2eid: string; id: string; sale_id: number; uuid: string };

/** One attempt in progress read back from the PSP: true when that ended it. */
async function readBack(
  db: Db,
  settler: SaleSettler,
  client: PixApiClient,
  row: InProgress,
): Promise<boolean> {
  const res = await client.call<ReportedDevolucao | null>('GET', `/pix/${row.e2eid}/devolucao/${row.id}`);
  if (res.status === 200 && (typeof res.body !== 'object' || res.body === null)) {
    throw new PspError('GET /pix/{e2eid}/devolucao answered 200 without a devolução', res.status);
  }
  if (res.status === 200) await acknowledge(db, row.e2eid, row.id);
  const dev = res.status === 200 ? res.body : null;
  if (res.status === 404 && (await endUnknownAttempt(db, row.sale_id, row.e2eid, row.id))) return true;
  if (!dev || (dev.status !== 'DEVOLVIDO' && dev.status !== 'NAO_REALIZADO')) {
    // still in progress (or not known yet): checked again after the others
    await touch(db, row.e2eid, row.id, res.status === 404);
    return false;
  }
  await applyRequestedDevolucao(db, settler, { id: row.sale_id, uuid: row.uuid }, row.e2eid, {
    ...dev,
    id: row.id,
  });
  return true;
}

/**
 * A read-back that ended nothing: the attempt goes after the others; a 404 continues its run of "unknown"
 * answers if the last one was within two minutes, or starts one; anything else ends it.
 */
async function touch(db: Queryable, e2eid: string, id: string, notFound: boolean): Promise<void> {
  await db.query(
    `UPDATE bcb_devolucoes SET updated_at = now(),
            unknown_since = CASE WHEN NOT $3 THEN NULL
                                 WHEN unknown_checked_at > now() - interval '2 minutes' THEN COALESCE(unknown_since, now())
                                 ELSE now() END,
            unknown_checked_at = CASE WHEN $3 THEN now() END
      WHERE e2eid = $1 AND id = $2`,
    [e2eid, id, notFound],
  );
}

/**
 * An attempt the PSP has never acknowledged, and has answered nothing but 404 for over the 10 minutes since it
 * was last sent, was never received (a request lost, a crash before it was sent): it ends as not made, and the money held for it
 * is the merchant's again (decided under the sale's lock, against a repeat sending it meanwhile).
 */
async function endUnknownAttempt(db: Db, saleId: number, e2eid: string, id: string): Promise<boolean> {
  return db.tx(async (tx) => {
    const sale = await lockSale(tx, saleId);
    const [ended] = await tx.query<{ refund_id: number }>(
      `UPDATE bcb_devolucoes SET status = 'NAO_REALIZADO', updated_at = now()
        WHERE e2eid = $1 AND id = $2 AND status = 'EM_PROCESSAMENTO' AND NOT acknowledged
          AND sent_at < now() - make_interval(secs => $3)
          AND unknown_since < now() - make_interval(secs => $3)
          AND unknown_checked_at > now() - interval '2 minutes'
        RETURNING refund_id`,
      [e2eid, id, UNKNOWN_ATTEMPT_GRACE_MS / 1000],
    );
    if (!ended) return false;
    if (sale) await failLocked(tx, sale, ended.refund_id);
    return true;
  });
}

/**
 * Attempts the PSP made (recorded DEVOLVIDO) whose refund has not caught up: a crash between recording the
 * report and making the refund. The refund is made now, its money taken from its hold.
 */
async function finishMadeRefunds(db: Db, settler: SaleSettler): Promise<number> {
  const rows = await db.query<{ refund_id: number }>(
    `SELECT d.refund_id FROM bcb_devolucoes d
      WHERE d.requested AND d.status = 'DEVOLVIDO' AND ${refundNotDone('d.refund_id')}
        AND d.updated_at BETWEEN now() - interval '7 days' AND now() - interval '1 minute'
      LIMIT 100`,
  );
  for (const row of rows) await completeRefund(db, settler.queue, row.refund_id);
  return rows.length;
}
