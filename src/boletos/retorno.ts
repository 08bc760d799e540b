import type { BoletoSettings } from '../platform/config/boleto.js';
import type { Db, Queryable } from '../platform/db/db.js';
import type { Queue } from '../platform/jobs/queue.js';
import { type Discrepancy, recordPaymentDiscrepancies } from '../reconciliation/index.js';
import type { SaleRow } from '../sales/index.js';
import {
  applyMoves,
  checkTransition,
  isClosedUnpaid,
  isOpen,
  lockSalesById,
  recordPaidAmounts,
  type SaleStatus,
} from '../sales/index.js';
import { cnabDate, cut, RECORD } from './cnab240.js';
import { boletosByNossoNumeros, markPaidByCnab } from './data.js';
import { BoletoInputError } from './errors.js';
import { beneficiaryKey } from './issue.js';
import { secondPayment, termsOf, wasPaid } from './paid-amount.js';
import { amountDueOn, lastPayableDay } from './terms.js';

/** One liquidação a return file reports (segment T with its U). */
export interface Liquidacao {
  nossoNumero: string;
  paidCents: number;
  paidOn: string;
}

export interface RetornoReport {
  lines: number;
  credited: number;
  alreadyPaid: number;
  unknown: number;
  rejected: number;
}

/** Movement codes of a liquidação in a return file: 06 liquidação, 17 liquidação após baixa. */
const LIQUIDACAO = new Set(['06', '17']);

/**
 * Reads a CNAB 240 return file. Anything malformed (a record not 240 characters long, another bank, a file that is
 * not a return, another beneficiary's (its header's or a title's agency, account or document), a T without its U,
 * counts in the trailers that disagree with the records, a payment dated after `today`, the São Paulo day of the
 * import: a bank reports payments made) refuses the whole file: a file is imported whole or not at all.
 */
export function parseRetorno(
  content: string,
  settings: Pick<BoletoSettings, 'bank' | 'agency' | 'account' | 'beneficiaryDocument'>,
  today: string,
): Liquidacao[] {
  const bank = settings.bank;
  // blank lines after the trailer (and a DOS end-of-file mark) are no records: a bank's file may end so
  let end = content.length;
  while (end > 0 && '\r\n\u001a'.includes(content[end - 1]!)) end--;
  if (end === 0)
    throw new BoletoInputError('the file is empty: a CNAB 240 return file has at least 4 records');
  const records = content.slice(0, end).split(/\r?\n/);
  const fail = (n: number, why: string): never => {
    throw new BoletoInputError(`line ${n}: ${why}`);
  };
  records.forEach((r, i) => {
    if (r.length !== RECORD) fail(i + 1, `a CNAB 240 record has 240 characters, this one ${r.length}`);
    if (cut(r, 1, 3) !== bank) fail(i + 1, `bank ${cut(r, 1, 3)} is not BOLETO_BANK ${bank}`);
  });
  if (records.length < 4)
    fail(records.length, 'a file has at least a header, a lot header and trailer, and a trailer');
  const head = records[0]!;
  if (cut(head, 8, 8) !== '0' || cut(head, 143, 143) !== '2')
    fail(1, 'not the header of a return file (0 … 2)');
  // the beneficiary's, as the remessa writes it: its document, agency and account (a nosso número is unique
  // only within one beneficiary, so another's liquidações would credit the wrong boletos)
  const ours = {
    document: settings.beneficiaryDocument.padStart(14, '0'),
    agency: settings.agency.padStart(5, '0'),
    account: settings.account.padStart(12, '0'),
  };
  const theirs = { document: cut(head, 19, 32), agency: cut(head, 53, 57), account: cut(head, 59, 70) };
  if (theirs.document !== ours.document || theirs.agency !== ours.agency || theirs.account !== ours.account) {
    fail(
      1,
      `the file is of beneficiary ${theirs.document}, agency ${theirs.agency}, account ${theirs.account} (as CNAB 240 writes them, zeros on the left), not of BOLETO_BENEFICIARY_DOCUMENT ${settings.beneficiaryDocument}, BOLETO_AGENCY ${settings.agency}, BOLETO_ACCOUNT ${settings.account}`,
    );
  }
  const tail = records.at(-1)!;
  if (cut(tail, 8, 8) !== '9') fail(records.length, 'the file does not end with its trailer (9)');
  if (Number(cut(tail, 24, 29)) !== records.length)
    fail(
      records.length,
      `the trailer counts ${Number(cut(tail, 24, 29))} records, the file has ${records.length}`,
    );
  const found: Liquidacao[] = [];
  let lotStart = -1;
  for (let i = 1; i < records.length - 1; i++) {
    const r = records[i]!;
    const type = cut(r, 8, 8);
    if (type === '1') lotStart = i;
    else if (type === '5') {
      if (lotStart < 0) fail(i + 1, 'a lot trailer without its header');
      if (Number(cut(r, 18, 23)) !== i - lotStart + 1)
        fail(
          i + 1,
          `the lot trailer counts ${Number(cut(r, 18, 23))} records, the lot has ${i - lotStart + 1}`,
        );
      lotStart = -1;
    } else if (type === '3') {
      if (lotStart < 0) fail(i + 1, 'a detail record outside a lot');
      const segment = cut(r, 14, 14);
      if (segment === 'U') fail(i + 1, 'a segment U without its T');
      if (segment !== 'T') continue;
      const u = records[i + 1] ?? '';
      if (cut(u, 8, 8) !== '3' || cut(u, 14, 14) !== 'U')
        fail(i + 2, 'a segment T must be followed by its U');
      i++;
      if (!LIQUIDACAO.has(cut(r, 16, 17))) continue;
      if (cut(r, 18, 22) !== ours.agency || cut(r, 24, 35) !== ours.account) {
        fail(
          i,
          `a title of agency ${cut(r, 18, 22)}, account ${cut(r, 24, 35)} (zeros on the left): not BOLETO_AGENCY ${settings.agency} and BOLETO_ACCOUNT ${settings.account}`,
        );
      }
      const nosso = cut(r, 38, 57).trim();
      if (!/^\d{1,20}$/.test(nosso)) fail(i, `nosso número "${nosso}" is not digits`);
      const paid = cut(u, 78, 92);
      const paidOn = cnabDate(cut(u, 138, 145));
      if (!/^\d{15}$/.test(paid)) fail(i + 1, 'the paid amount (78–92) is not 15 digits');
      if (!paidOn) fail(i + 1, 'the date of the payment (138–145) is not a date DDMMAAAA');
      if (paidOn! > today)
        fail(
          i + 1,
          `the payment is dated ${paidOn}, after today (${today}): a return file reports payments made`,
        );
      found.push({
        // the gateway's are 11 digits, zero-filled on the left in the field: any other digit before them makes
        // another number, which names no boleto of the gateway (never the one its last 11 digits would)
        nossoNumero: nosso.length < 11 ? nosso.padStart(11, '0') : nosso.replace(/^0+(?=\d{11}$)/, ''),
        paidCents: Number(paid),
        paidOn: paidOn!,
      });
    } else fail(i + 1, `record type ${type} is not one of 0, 1, 3, 5, 9`);
  }
  if (lotStart >= 0) fail(records.length, 'a lot without its trailer');
  return found;
}

/** Liquidações decided and credited a statement at a time (all of a file in its one transaction). */
const CHUNK = 500;

/**
 * Credits each liquidação once, by nosso número, through the sales settlement path (fee on the paid amount,
 * ledger entries and sale.paid with the status change), the whole file in one transaction: a failure imports
 * nothing. A liquidação of a boleto already paid (by Pix, an earlier file, or earlier in this file) credits
 * nothing (another liquidação than the one that paid it is a `duplicate_payment`); one of an amount other than
 * what the boleto asks on its payment date, past its last payable day, or of a boleto cancelled is rejected
 * (`amount_mismatch`, `closed_charge_paid`); an unknown nosso número is an `unknown_charge`: each a
 * reconciliation discrepancy, once per liquidação, since the bank holds money the gateway credited nobody. Lines are decided in file order, a chunk at a time in a fixed number of statements: the chunk's
 * boletos in one read, their sales locked in one (id order), the paid amounts and fees in one update, every
 * move through the settler's batched `applyMoves`, the crediting liquidações marked in one more, and the
 * discrepancies written in one.
 */
export async function importRetorno(
  db: Db,
  queue: Queue,
  settings: BoletoSettings,
  liquidacoes: Liquidacao[],
): Promise<RetornoReport> {
  const report: RetornoReport = {
    lines: liquidacoes.length,
    credited: 0,
    alreadyPaid: 0,
    unknown: 0,
    rejected: 0,
  };
  await db.tx(async (tx) => {
    for (let at = 0; at < liquidacoes.length; at += CHUNK) {
      await importChunk(tx, queue, beneficiaryKey(settings), liquidacoes.slice(at, at + CHUNK), report);
    }
  });
  return report;
}

async function importChunk(
  tx: Queryable,
  queue: Queue,
  beneficiary: string,
  chunk: Liquidacao[],
  report: RetornoReport,
): Promise<void> {
  const boletos = new Map(
    (
      await boletosByNossoNumeros(
        tx,
        beneficiary,
        chunk.map((l) => l.nossoNumero),
      )
    ).map((b) => [b.nosso_numero, b]),
  );
  const sales = new Map(
    (
      await lockSalesById(
        tx,
        [...boletos.values()].map((b) => b.sale_id),
      )
    ).map((s) => [Number(s.id), s]),
  );
  // what this chunk has credited so far: a later line about the same boleto sees it paid by that liquidação
  const creditedNow = new Map<number, Liquidacao>();
  const credits: { sale: SaleRow; amount: number; liquidacao: Liquidacao }[] = [];
  // money the bank received that credits nothing: the payer is owed it (or the merchant, by agreement)
  const owed: Discrepancy[] = [];
  for (const l of chunk) {
    const reference = `cnab:${l.nossoNumero}:${l.paidOn}:${l.paidCents}`;
    const boleto = boletos.get(l.nossoNumero);
    const sale = boleto ? sales.get(Number(boleto.sale_id)) : undefined;
    if (!boleto || !sale) {
      report.unknown++;
      owed.push({
        kind: 'unknown_charge',
        e2eid: reference,
        txid: null,
        amount: l.paidCents,
        detail: `a CNAB liquidação of nosso número ${l.nossoNumero} on ${l.paidOn}: no boleto of the gateway has it`,
      });
      continue;
    }
    const earlier = creditedNow.get(Number(sale.id));
    const status: SaleStatus = earlier ? 'PAGO' : sale.status;
    if (isClosedUnpaid(status)) {
      // a boleto cancelled (by its merchant, or at its last payable day) paid at the bank all the same
      report.rejected++;
      owed.push({
        kind: 'closed_charge_paid',
        e2eid: reference,
        txid: boleto.txid,
        amount: l.paidCents,
        detail: `boleto ${boleto.nosso_numero} of sale ${sale.uuid} is ${status}, paid by barcode on ${l.paidOn}: not credited`,
      });
      continue;
    }
    if (!isOpen(status) || checkTransition(status, 'PAGO') !== 'apply') {
      report.alreadyPaid++;
      // the same liquidação reported again is not a second payment; any other one is (paid by Pix first, or
      // a second liquidação): money the merchant was not credited, to be returned to the payer
      const paidOn = earlier ? earlier.paidOn : boleto.cnab_paid_on;
      const paidCents = earlier ? earlier.paidCents : boleto.cnab_paid_amount;
      const sameReport = paidOn === l.paidOn && paidCents === l.paidCents;
      if (wasPaid(status) && !sameReport) {
        owed.push(
          secondPayment(boleto, { reference, amount: l.paidCents, detail: `by barcode on ${l.paidOn}` }),
        );
      }
      continue;
    }
    const terms = termsOf(boleto);
    const last = lastPayableDay(terms);
    const due = l.paidOn > last ? null : amountDueOn(boleto.amount, terms, l.paidOn);
    if (l.paidCents !== due) {
      report.rejected++;
      owed.push({
        kind: 'amount_mismatch',
        e2eid: reference,
        txid: boleto.txid,
        amount: l.paidCents,
        detail:
          due === null
            ? `boleto ${boleto.nosso_numero} paid by barcode on ${l.paidOn}, after its last day to be paid (${last}): not credited`
            : `boleto ${boleto.nosso_numero} paid ${l.paidCents} cents by barcode on ${l.paidOn}, ${due} due that day: not credited`,
      });
      continue;
    }
    creditedNow.set(Number(sale.id), l);
    credits.push({ sale, amount: l.paidCents, liquidacao: l });
  }
  await recordPaymentDiscrepancies(tx, owed);
  const paid = await recordPaidAmounts(tx, credits);
  await applyMoves(
    tx,
    queue,
    paid.map((before) => ({ before, to: 'PAGO' as const })),
  );
  await markPaidByCnab(
    tx,
    credits.map((c) => ({ saleId: c.sale.id, paidOn: c.liquidacao.paidOn, amount: c.liquidacao.paidCents })),
  );
  report.credited += credits.length;
}
