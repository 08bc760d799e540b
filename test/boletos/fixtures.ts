import { nextBusinessDay } from '../../src/payment-standards/business-days.js';
import type { Queryable } from '../../src/platform/db/db.js';
import { addDays } from '../../src/platform/time/calendar.js';
import { toSaoPaulo } from '../../src/platform/time/sao-paulo.js';
import { CUSTOMER, type SaleBody } from '../sales/fixtures.js';

export const ADDRESS = {
  street: 'Rua das Flores',
  number: '100',
  district: 'Centro',
  city: 'São Paulo',
  state: 'SP',
  zipCode: '01001-000',
};

/** São Paulo's date, `days` from today. */
export function spDay(days = 0): string {
  const today = toSaoPaulo(new Date()).slice(0, 10);
  return new Date(Date.parse(`${today}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * The dates the boleto tests reckon from, all business days whatever today is (a due date on a weekend or a
 * holiday is moved to the next business day, and the dates that refer to it with it): a discount's last day
 * from tomorrow on, and a due date at least two days after it. A payment `n` days after DUE() is `n` days late.
 */
export const DISCOUNT_UNTIL = () => nextBusinessDay(spDay(1));
export const DUE = () => nextBusinessDay(addDays(DISCOUNT_UNTIL(), 2));

export function boletoInput(overrides: Record<string, unknown> = {}, terms: Record<string, unknown> = {}) {
  return {
    amount: 10000,
    paymentMethod: 'BOLETO',
    customer: { ...CUSTOMER, address: ADDRESS },
    items: [{ title: 'Curso online', unitPrice: 10000, quantity: 1, tangible: false }],
    boleto: { dueDate: DUE(), ...terms },
    ...overrides,
  };
}

export interface BoletoSaleBody extends SaleBody {
  paidAmount: number | null;
  expiresAt: string | null;
  pixQrCode: string;
  boleto: {
    barcode: string;
    digitableLine: string;
    dueDate: string;
    nossoNumero: string;
    pdfUrl: string;
    pixCopyPaste: string;
    pixQrCode: string;
  };
}

/** The next Saturday from the day after tomorrow whose Monday is a business day: a due date payments move. */
export function nextSaturday(): string {
  let day = spDay(2);
  while (new Date(`${day}T00:00:00Z`).getUTCDay() !== 6 || nextBusinessDay(day) !== addDays(day, 2)) {
    day = addDays(day, 1);
  }
  return day;
}

/**
 * Moves an issued boleto's due date back to `dueDate`, its discount's last day and its issue by as many days, as if
 * it had been issued that long ago: a return file reports payments made, so a payment late, or on the Monday after
 * a Saturday due date, is tested on a boleto whose due date has passed (the gateway issues none so).
 */
export async function backdate(db: Queryable, saleId: number, dueDate: string): Promise<void> {
  await db.query(
    `UPDATE boletos SET discount_until = discount_until - (due_date - $2::date),
            created_at = created_at - (due_date - $2::date) * interval '1 day', due_date = $2::date
      WHERE sale_id = $1`,
    [saleId, dueDate],
  );
}

/** A business day at least `daysLate` days ago: a boleto due then and paid `daysLate` days after is paid by today. */
export function pastDue(daysLate: number): string {
  let day = spDay(-daysLate);
  while (nextBusinessDay(day) !== day) day = addDays(day, -1);
  return day;
}

/** The latest Saturday whose next business day is the Monday after it, that Monday today or before. */
export function lastSaturday(): string {
  let day = spDay(-2);
  while (new Date(`${day}T00:00:00Z`).getUTCDay() !== 6 || nextBusinessDay(day) !== addDays(day, 2)) {
    day = addDays(day, -1);
  }
  return day;
}
