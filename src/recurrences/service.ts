import { randomInt } from 'node:crypto';
import type { Db, Queryable } from '../platform/db.js';
import { notFound } from '../platform/errors.js';
import type { Queue } from '../platform/queue.js';
import { normalizeCustomer, normalizePostbackUrl, parseDate } from '../sales/input.js';
import type { SaleProcessor } from '../sales/processors/processor.js';
import { createSale, saleFees } from '../sales/service.js';
import { moveSale } from '../sales/transition.js';
import type { Customer, SaleRow } from '../sales/types.js';

export interface RecurrenceRow {
  id: number;
  id_rec: string;
  account_id: number;
  contrato: string;
  journey: number;
  amount: number;
  customer: Customer;
  postback_url: string | null;
  cycles: number;
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
): Promise<{ recurrence: RecurrenceRow; sale: SaleRow | null }> {
  const customer = normalizeCustomer(input.customer);
  const dataInicial = parseDate(input.dataInicial, 'dataInicial');
  const postbackUrl = normalizePostbackUrl(input.postbackUrl);
  return db.tx(async (tx) => {
    // every cycle is a sale of this amount: one the sale fee does not fit could never be charged
    await saleFees(tx, accountId, input.amount);
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
    const sale = input.journey >= 3 ? await chargeCycle(tx, queue, processor, recurrence!) : null;
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
): Promise<SaleRow> {
  return db.tx(async (tx) => {
    const [recurrence] = await tx.query<RecurrenceRow>(
      'SELECT * FROM recurrences WHERE id_rec = $1 AND account_id = $2 FOR UPDATE',
      [idRec, accountId],
    );
    if (!recurrence) throw notFound(`recurrence ${idRec} not found`);
    return chargeCycle(tx, queue, processor, recurrence);
  });
}

async function chargeCycle(
  tx: Queryable,
  queue: Queue,
  processor: SaleProcessor,
  rec: RecurrenceRow,
): Promise<SaleRow> {
  await tx.query('UPDATE recurrences SET cycles = cycles + 1 WHERE id = $1', [rec.id]);
  const details = processor.charge({ paymentMethod: 'PIX_AUTOMATICO', amount: rec.amount });
  const pending = await createSale(
    tx,
    {
      accountId: rec.account_id,
      amount: rec.amount,
      paymentMethod: 'PIX_AUTOMATICO',
      customer: rec.customer,
      items: [{ title: `Contrato ${rec.contrato}`, unitPrice: rec.amount, quantity: 1, tangible: false }],
      shipping: null,
      installments: null,
      processor: processor.name,
      postbackUrl: rec.postback_url,
      cartId: null,
      recurrence: { id: rec.id, idRec: rec.id_rec, contrato: rec.contrato },
      ...details,
    },
    // An automatic debit is paid when it exists: there is no "awaiting payment" moment to notify.
    { notifyPending: false },
  );
  return (await moveSale(tx, queue, pending.id, 'PAGO')).sale;
}
