import { nextBusinessDay } from '../payment-standards/index.js';
import type { BoletoSettings } from '../platform/config/boleto.js';
import { addDays } from '../platform/time/calendar.js';
import { toSaoPaulo } from '../platform/time/sao-paulo.js';
import { type Field, record, toCnabDate } from './cnab240.js';
import type { BoletoRow } from './data.js';

/** The header and trailer fields both file kinds share: bank, lot, record type. */
const head = (bank: string, lot: string, type: string): Field[] => [
  { at: 1, len: 3, value: bank, numeric: true },
  { at: 4, len: 4, value: lot, numeric: true },
  { at: 8, len: 1, value: type, numeric: true },
];

/** The beneficiary as the headers name it (positions of the file header; the lot header's are one further). */
function company(s: BoletoSettings, shift: number): Field[] {
  return [
    { at: 18, len: 1, value: s.beneficiaryDocument.length === 11 ? '1' : '2', numeric: true },
    { at: 19, len: 14 + shift, value: s.beneficiaryDocument, numeric: true },
    { at: 53 + shift, len: 5, value: s.agency, numeric: true },
    { at: 59 + shift, len: 12, value: s.account, numeric: true },
    { at: 73 + shift, len: 30, value: s.beneficiaryName },
  ];
}

export interface FileHeader {
  /** 1: remessa, 2: retorno. */
  kind: '1' | '2';
  /** The lot's operation: R remessa, T retorno. */
  operation: 'R' | 'T';
  day: string;
  sequence: number;
}

/** Header of the file (0) and of its one lot (1). */
export function headers(s: BoletoSettings, h: FileHeader): string[] {
  return [
    record([
      ...head(s.bank, '0000', '0'),
      ...company(s, 0),
      { at: 103, len: 30, value: 'BANCO BRADESCO S.A.' },
      { at: 143, len: 1, value: h.kind, numeric: true },
      { at: 144, len: 8, value: toCnabDate(h.day), numeric: true },
      { at: 152, len: 6, value: 0, numeric: true },
      { at: 158, len: 6, value: h.sequence, numeric: true },
      { at: 164, len: 3, value: '103', numeric: true },
      { at: 167, len: 5, value: 0, numeric: true },
    ]),
    record([
      ...head(s.bank, '0001', '1'),
      { at: 9, len: 1, value: h.operation },
      { at: 10, len: 2, value: '01', numeric: true },
      { at: 14, len: 3, value: '060', numeric: true },
      ...company(s, 1),
      { at: 184, len: 8, value: h.sequence, numeric: true },
      { at: 192, len: 8, value: toCnabDate(h.day), numeric: true },
    ]),
  ];
}

/** Trailers of the lot (5) and of the file (9), counting the records before them. */
export function trailers(bank: string, lotRecords: number, fileRecords: number): string[] {
  return [
    record([...head(bank, '0001', '5'), { at: 18, len: 6, value: lotRecords + 1, numeric: true }]),
    record([
      ...head(bank, '9999', '9'),
      { at: 18, len: 6, value: 1, numeric: true },
      { at: 24, len: 6, value: fileRecords + 2, numeric: true },
    ]),
  ];
}

/** A detail record's common start: bank, lot 0001, type 3, its number in the lot, segment, movement. */
export const detail = (bank: string, n: number, segment: string, movement: string): Field[] => [
  ...head(bank, '0001', '3'),
  { at: 9, len: 5, value: n, numeric: true },
  { at: 14, len: 1, value: segment },
  { at: 16, len: 2, value: movement, numeric: true },
];

/** The title's account and nosso número fields (positions 18–58), shared by segments P and T. */
export const title = (s: BoletoSettings, nossoNumero: string): Field[] => [
  { at: 18, len: 5, value: s.agency, numeric: true },
  { at: 24, len: 12, value: s.account, numeric: true },
  { at: 38, len: 20, value: nossoNumero, numeric: true },
  { at: 58, len: 1, value: '1', numeric: true },
];

/**
 * The CNAB 240 registration file (remessa) of a day: per boleto to register a segment P (the title: due date,
 * value, interest, discount), a Q (the payer) and, when it has a fine, an R (the fine), movement 01 "entrada de
 * títulos"; per boleto to take down a segment P alone, movement 02 "pedido de baixa". Interest and fine are
 * registered as the gateway reckons them, so that a bank asks the payer what the gateway credits: interest as
 * a monthly rate (código 2, taxa mensal: the bank's day is the month's thirtieth, as amountDueOn's), not a value
 * a day rounded to the cent; the fine as a percentage (código 2), from the day after the due date.
 */
export function remessa(
  s: BoletoSettings,
  day: string,
  sequence: number,
  boletos: BoletoRow[],
  takeDown: BoletoRow[] = [],
): string {
  const lines = headers(s, { kind: '1', operation: 'R', day, sequence });
  let n = 0;
  for (const b of boletos) {
    const late = lateFrom(b);
    lines.push(segmentP(s, b, ++n, '01'));
    const a = b.payer.address;
    lines.push(
      record([
        ...detail(s.bank, ++n, 'Q', '01'),
        { at: 18, len: 1, value: b.payer.document.length === 11 ? '1' : '2', numeric: true },
        { at: 19, len: 15, value: b.payer.document, numeric: true },
        { at: 34, len: 40, value: b.payer.name },
        { at: 74, len: 40, value: `${a.street}, ${a.number}` },
        { at: 114, len: 15, value: a.district },
        { at: 129, len: 5, value: a.zipCode.slice(0, 5), numeric: true },
        { at: 134, len: 3, value: a.zipCode.slice(5), numeric: true },
        { at: 137, len: 15, value: a.city },
        { at: 152, len: 2, value: a.state },
      ]),
    );
    if (b.fine_bp > 0) {
      lines.push(
        record([
          ...detail(s.bank, ++n, 'R', '01'),
          // no second or third discount
          { at: 18, len: 1, value: '0', numeric: true },
          { at: 19, len: 8, value: 0, numeric: true },
          { at: 27, len: 15, value: 0, numeric: true },
          { at: 42, len: 1, value: '0', numeric: true },
          { at: 43, len: 8, value: 0, numeric: true },
          { at: 51, len: 15, value: 0, numeric: true },
          // the fine: 2 = percentage (hundredths of a percent, 13+2), from the day after the due date
          { at: 66, len: 1, value: '2', numeric: true },
          { at: 67, len: 8, value: late, numeric: true },
          { at: 75, len: 15, value: b.fine_bp, numeric: true },
        ]),
      );
    }
  }
  for (const b of takeDown) lines.push(segmentP(s, b, ++n, '02'));
  lines.push(...trailers(s.bank, n + 1, lines.length));
  return `${lines.join('\r\n')}\r\n`;
}

/** Interest and fine run from the day after the due date as payments are judged by it (off a weekend or holiday). */
const lateFrom = (b: BoletoRow) => toCnabDate(addDays(nextBusinessDay(b.due_date), 1));

/** A boleto's segment P: the title as registered, with the movement asked of the bank (01 entrada, 02 baixa). */
function segmentP(s: BoletoSettings, b: BoletoRow, n: number, movement: '01' | '02'): string {
  // the day it was issued in São Paulo, as the file's own day is (late evening there is already tomorrow in UTC)
  const created = toSaoPaulo(b.created_at).slice(0, 10);
  const late = lateFrom(b);
  return record([
    ...detail(s.bank, n, 'P', movement),
    ...title(s, b.nosso_numero),
    { at: 63, len: 15, value: b.nosso_numero },
    { at: 78, len: 8, value: toCnabDate(b.due_date), numeric: true },
    { at: 86, len: 15, value: b.amount, numeric: true },
    { at: 107, len: 2, value: '02', numeric: true }, // DM: duplicata mercantil
    { at: 109, len: 1, value: 'N' },
    { at: 110, len: 8, value: toCnabDate(created), numeric: true },
    // interest: 2 = taxa mensal (hundredths of a percent, 13+2), from the day after the due date; 3 = none
    { at: 118, len: 1, value: b.monthly_interest_bp > 0 ? '2' : '3', numeric: true },
    { at: 119, len: 8, value: b.monthly_interest_bp > 0 ? late : 0, numeric: true },
    { at: 127, len: 15, value: b.monthly_interest_bp, numeric: true },
    { at: 142, len: 1, value: b.discount_cents ? '1' : '0', numeric: true },
    { at: 143, len: 8, value: b.discount_until ? toCnabDate(b.discount_until) : 0, numeric: true },
    { at: 151, len: 15, value: b.discount_cents ?? 0, numeric: true },
    { at: 196, len: 25, value: String(b.sale_id) },
    { at: 221, len: 1, value: '3', numeric: true }, // no protest
    { at: 224, len: 1, value: '1', numeric: true }, // baixa after the days below
    { at: 225, len: 3, value: b.days_after_due, numeric: true },
    { at: 228, len: 2, value: '09', numeric: true }, // real
  ]);
}
