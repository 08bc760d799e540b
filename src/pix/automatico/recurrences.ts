import { randomInt } from 'node:crypto';
import type { Db, Queryable } from '../../platform/db/db.js';
import { notFound } from '../../platform/errors/app-error.js';
import type { Queue } from '../../platform/jobs/queue.js';
import type { RiskDecision } from '../../risk/index.js';
import type {
  ChargeDetails,
  Customer,
  SaleDoor,
  SaleItem,
  SaleOrigin,
  SaleProcessor,
  SaleRow,
} from '../../sales/index.js';
import {
  createSale,
  findSaleRow,
  moveSale,
  normalizeCustomer,
  normalizePostbackUrl,
  parseDate,
  saleFees,
  setSaleSubscription,
  storeBlockedSale,
  unclaimedPaidSaleOfRecurrence,
} from '../../sales/index.js';

export interface RecurrenceRow {
  id: number;
  id_rec: string;
  account_id: number;
  contrato: string;
  journey: number;
  /** Every cycle's amount; null for a mandate of varying amounts (each charge says its own). */
  amount: number | null;
  customer: Customer;
  postback_url: string | null;
  cycles: number;
  /** Who plays the mandate: the sandbox, or a real processor ('bcb') that reports its cycles. */
  processor: string;
}

export interface RecurrenceInput {
  contrato: string;
  journey: number;
  amount: number;
  dataInicial: string;
  customer: Customer;
  postbackUrl?: string;
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
// The sandbox plays the payer's institution; its ISPB here is a placeholder of eight nines.
const SANDBOX_ISPB = '99999999';

/** idRec in the PIX Automático layout: "RR" + ISPB (8) + date YYYYMMDD + 11 alphanumerics (29 chars). */
function newIdRec(now: Date): string {
  let tail = '';
  for (let i = 0; i < 11; i++) tail += ALNUM[randomInt(0, ALNUM.length)];
  return `RR${SANDBOX_ISPB}${now.toISOString().slice(0, 10).replaceAll('-', '')}${tail}`;
}

/**
 * The customer authorizes a mandate. Journeys 1 and 2 only authorize (no sale, no notification); journeys 3
 * and 4 also pay the first cycle at once (a PAGO PIX_AUTOMATICO sale, notified).
 */
export async function createRecurrence(
  db: Db,
  queue: Queue,
  processor: SaleProcessor,
  accountId: number,
  input: RecurrenceInput,
  refuse: CycleRefusal = () => null,
): Promise<{ recurrence: RecurrenceRow; sale: SaleRow | null }> {
  const customer = normalizeCustomer(input.customer);
  const dataInicial = parseDate(input.dataInicial, 'dataInicial');
  const postbackUrl = normalizePostbackUrl(input.postbackUrl);
  return db.tx(async (tx) => {
    // every cycle is a sale of this amount: one the sale fee does not fit could never be charged
    await saleFees(tx, accountId, input.amount, { paymentMethod: 'PIX_AUTOMATICO' });
    const [recurrence] = await tx.query<RecurrenceRow>(
      `INSERT INTO recurrences (id_rec, account_id, contrato, journey, amount, data_inicial, customer, postback_url)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       RETURNING *`,
      [
        newIdRec(new Date()),
        accountId,
        input.contrato,
        input.journey,
        input.amount,
        dataInicial,
        JSON.stringify(customer),
        postbackUrl,
      ],
    );
    const sale = input.journey >= 3 ? await sandboxCycle(tx, queue, processor, recurrence!, refuse) : null;
    return { recurrence: recurrence!, sale };
  });
}

/** The bank debits the next cycle: a new PAGO sale with its own id and notification. */
export async function debitCycle(
  db: Db,
  queue: Queue,
  processor: SaleProcessor,
  accountId: number,
  idRec: string,
  refuse: CycleRefusal = () => null,
): Promise<SaleRow> {
  return db.tx(async (tx) => {
    const [recurrence] = await tx.query<RecurrenceRow>(
      // the sandbox debits only the mandates it plays, never one a real processor reports
      'SELECT * FROM recurrences WHERE id_rec = $1 AND account_id = $2 AND processor = $3 FOR UPDATE',
      [idRec, accountId, processor.name],
    );
    if (!recurrence) throw notFound(`recurrence ${idRec} not found`);
    return sandboxCycle(tx, queue, processor, recurrence, refuse);
  });
}

/**
 * The risk rules' word on a sandbox cycle (the one admission: a cycle is a charge of its payer): a block, or
 * null to debit it.
 */
export type CycleRefusal = (rec: RecurrenceRow) => RiskDecision | null;

async function sandboxCycle(
  tx: Queryable,
  queue: Queue,
  processor: SaleProcessor,
  rec: RecurrenceRow,
  refuse: CycleRefusal,
): Promise<SaleRow> {
  const amount = rec.amount!; // the sandbox's mandates all have a fixed amount
  const blocked = refuse(rec);
  if (blocked) {
    // not debited: the cycle's sale stored refused (RISK_BLOCKED), carrying its mandate, notified as refused
    const { id } = await storeBlockedSale(
      tx,
      queue,
      rec.account_id,
      {
        amount,
        paymentMethod: 'PIX_AUTOMATICO',
        customer: rec.customer,
        items: [{ title: `Contrato ${rec.contrato}`, unitPrice: amount, quantity: 1, tangible: false }],
        postbackUrl: rec.postback_url,
      },
      blocked,
      { recurrence: { id: rec.id, idRec: rec.id_rec, contrato: rec.contrato }, door: 'sandbox' },
    );
    return (await findSaleRow(tx, { kind: 'numeric', id }))!;
  }
  const details = processor.charge({ paymentMethod: 'PIX_AUTOMATICO', amount });
  // the sandbox's own door: open to an account waiting for review, as its sale routes are
  return chargeCycle(tx, queue, rec, { amount, processor: processor.name, details, door: 'sandbox' });
}

/**
 * One cycle of a mandate, paid: a PIX_AUTOMATICO sale carrying idRec and contrato, created and moved to PAGO
 * through the one transition path (ledger entry and notification in the caller's transaction). The sandbox
 * and the bcb processor's reported charges (cobr) both come here; `rec` is locked by the caller.
 */
export async function chargeCycle(
  tx: Queryable,
  queue: Queue,
  rec: RecurrenceRow,
  cycle: {
    amount: number;
    processor: string;
    details: ChargeDetails;
    /** A subscription's cycle: the sale carries its origin and says what period it pays. */
    origin?: SaleOrigin;
    items?: Omit<SaleItem, 'id'>[];
    customer?: Customer;
    /** A subscription's split (checked by the admission as a charge's). */
    split?: unknown;
    /** The door that debits it, for the account's standing (the sandbox's, or a charge's). */
    door?: SaleDoor;
  },
): Promise<SaleRow> {
  const { amount, details } = cycle;
  await countCycle(tx, rec.id);
  const pending = await createSale(
    tx,
    {
      accountId: rec.account_id,
      amount,
      paymentMethod: 'PIX_AUTOMATICO',
      customer: cycle.customer ?? rec.customer,
      items: cycle.items ?? [
        { title: `Contrato ${rec.contrato}`, unitPrice: amount, quantity: 1, tangible: false },
      ],
      origin: cycle.origin,
      shipping: null,
      installments: null,
      processor: cycle.processor,
      postbackUrl: rec.postback_url,
      cartId: null,
      recurrence: { id: rec.id, idRec: rec.id_rec, contrato: rec.contrato },
      ...details,
      split: cycle.split,
    },
    // An automatic debit is paid when it exists: there is no "awaiting payment" moment to notify.
    { notifyPending: false, ...(cycle.door ? { door: cycle.door } : {}) },
  );
  return (await moveSale(tx, queue, pending.id, 'PAGO')).sale;
}

export interface ReportedMandate {
  idRec: string;
  accountId: number;
  contrato: string;
  journey: number;
  amount: number | null;
  dataInicial: string;
  customer: Customer;
  processor: string;
}

/**
 * A mandate a real processor reports approved becomes a recurrence, once: a repeated report finds the one
 * already recorded (`created: false`) and changes nothing.
 */
export async function recordMandate(
  q: Queryable,
  m: ReportedMandate,
): Promise<{ recurrence: RecurrenceRow; created: boolean }> {
  const [created] = await q.query<RecurrenceRow>(
    `INSERT INTO recurrences (id_rec, account_id, contrato, journey, amount, data_inicial, customer, processor)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (id_rec) DO NOTHING RETURNING *`,
    [
      m.idRec,
      m.accountId,
      m.contrato,
      m.journey,
      m.amount,
      m.dataInicial,
      JSON.stringify(m.customer),
      m.processor,
    ],
  );
  if (created) return { recurrence: created, created: true };
  const [known] = await q.query<RecurrenceRow>('SELECT * FROM recurrences WHERE id_rec = $1', [m.idRec]);
  return { recurrence: known!, created: false };
}

/** The recurrence with this idRec, locked for the caller's transaction. */
export async function lockRecurrence(tx: Queryable, idRec: string): Promise<RecurrenceRow | null> {
  const [row] = await tx.query<RecurrenceRow>('SELECT * FROM recurrences WHERE id_rec = $1 FOR UPDATE', [
    idRec,
  ]);
  return row ? recurrence(row) : null;
}

/** One more cycle of the mandate charged (a sale made for it, or a scheduled one paid). */
export async function countCycle(tx: Queryable, recurrenceId: number): Promise<void> {
  await tx.query('UPDATE recurrences SET cycles = cycles + 1 WHERE id = $1', [recurrenceId]);
}

const recurrence = (r: RecurrenceRow): RecurrenceRow => ({
  ...r,
  id: Number(r.id),
  account_id: Number(r.account_id),
  amount: r.amount === null ? null : Number(r.amount),
});

/** The account's mandate with this idRec. */
export async function findRecurrence(
  q: Queryable,
  accountId: number,
  idRec: string,
): Promise<RecurrenceRow | null> {
  const [row] = await q.query<RecurrenceRow>(
    'SELECT * FROM recurrences WHERE id_rec = $1 AND account_id = $2',
    [idRec, accountId],
  );
  return row ? recurrence(row) : null;
}

export async function recurrencesById(q: Queryable, ids: number[]): Promise<Map<number, RecurrenceRow>> {
  if (ids.length === 0) return new Map();
  const rows = await q.query<RecurrenceRow>('SELECT * FROM recurrences WHERE id = ANY($1::bigint[])', [ids]);
  return new Map(rows.map((r) => [Number(r.id), recurrence(r)]));
}

/** The account's mandates whose payer has this CPF or CNPJ, newest first. */
export async function recurrencesOfPayer(
  q: Queryable,
  accountId: number,
  document: string,
): Promise<RecurrenceRow[]> {
  const rows = await q.query<RecurrenceRow>(
    `SELECT * FROM recurrences WHERE account_id = $1 AND customer ->> 'document' = $2 ORDER BY id DESC LIMIT 20`,
    [accountId, document],
  );
  return rows.map(recurrence);
}

/**
 * The cycle a journey 3 or 4 authorisation paid at once, locked, when it is still the mandate's only cycle and
 * no subscription has taken it (`adoptCycle`).
 */
export async function unclaimedFirstCycle(tx: Queryable, rec: RecurrenceRow): Promise<SaleRow | null> {
  if (rec.journey < 3 || rec.cycles !== 1) return null;
  return unclaimedPaidSaleOfRecurrence(tx, rec.id);
}

/** A paid cycle becomes a subscription's payment: its Sale object carries `subscriptionId` from now on. */
export const adoptCycle = setSaleSubscription;
