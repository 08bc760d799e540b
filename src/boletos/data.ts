import { addRows, type GatheredWrite, type Queryable } from '../platform/db/db.js';
import { rowOrNull } from '../platform/sql/row-or-null.js';
import type { CobvPayer } from './cobv.js';

/** A row of `boletos`. */
export interface BoletoRow {
  sale_id: number;
  account_id: number;
  beneficiary: string;
  nosso_numero: string;
  barcode: string;
  digitable_line: string;
  amount: number;
  due_date: string;
  days_after_due: number;
  fine_bp: number;
  monthly_interest_bp: number;
  discount_cents: number | null;
  discount_until: string | null;
  txid: string;
  pix_copy_paste: string;
  payer: CobvPayer;
  created_at: Date;
  cnab_paid_on: string | null;
  cnab_paid_amount: number | null;
  /** The shop that sold (the beneficiário final), as named when issued; null for boletos issued before. */
  shop_name: string | null;
  /** What was bought ("2 × Camiseta, Frete"), printed in the instructions; null for boletos issued before. */
  description: string | null;
}

const COLUMNS = `sale_id, account_id, beneficiary, nosso_numero, barcode, digitable_line, amount,
  to_char(due_date, 'YYYY-MM-DD') AS due_date, days_after_due, fine_bp, monthly_interest_bp, discount_cents,
  to_char(discount_until, 'YYYY-MM-DD') AS discount_until, txid, pix_copy_paste, payer, created_at,
  to_char(cnab_paid_on, 'YYYY-MM-DD') AS cnab_paid_on, cnab_paid_amount, shop_name, description`;

/**
 * `count` nossos números, drawn from the one sequence every beneficiary's come from (migration 273): no row lock and
 * no commit of their own; a number a failed issue took is a gap, never a repeat. Ascending, not always consecutive
 * (other processes draw beside).
 */
export async function takeNossoNumeros(db: Queryable, count: number): Promise<number[]> {
  const rows = await db.query<{ n: string }>(
    "SELECT nextval('boleto_nosso_numeros') AS n FROM generate_series(1, $1::int)",
    [count],
    { prepare: 'boleto_nosso_numeros_v1' },
  );
  return rows.map((row) => Number(row.n)).sort((a, b) => a - b);
}

export type NewBoleto = Omit<BoletoRow, 'created_at' | 'cnab_paid_on' | 'cnab_paid_amount'> & {
  pdfTokenHash: Buffer;
};

/**
 * Stores a boleto's row; in a transaction that gathers writes (the charges opened together), the boletos of all
 * its writers are stored by one statement just before its COMMIT.
 */
export function insertBoleto(tx: Queryable, b: NewBoleto): Promise<void> {
  return addRows(tx, BOLETOS, [b]);
}

const BOLETOS: GatheredWrite<NewBoleto> = { write: (tx, items) => insertBoletos(tx, items) };

const BOLETO_COLUMNS: [keyof NewBoleto | 'payer_json', string][] = [
  ['sale_id', 'bigint'],
  ['account_id', 'bigint'],
  ['beneficiary', 'text'],
  ['nosso_numero', 'text'],
  ['barcode', 'text'],
  ['digitable_line', 'text'],
  ['amount', 'bigint'],
  ['due_date', 'date'],
  ['days_after_due', 'int'],
  ['fine_bp', 'int'],
  ['monthly_interest_bp', 'int'],
  ['discount_cents', 'bigint'],
  ['discount_until', 'date'],
  ['txid', 'text'],
  ['pix_copy_paste', 'text'],
  ['pdfTokenHash', 'bytea'],
  ['payer_json', 'json'],
  ['shop_name', 'text'],
  ['description', 'text'],
];

/** Boletos' rows in one statement whatever their number (a column array each: one text, planned once). */
async function insertBoletos(tx: Queryable, boletos: NewBoleto[]): Promise<void> {
  await tx.query(
    `INSERT INTO boletos (sale_id, account_id, beneficiary, nosso_numero, barcode, digitable_line, amount, due_date,
        days_after_due, fine_bp, monthly_interest_bp, discount_cents, discount_until, txid, pix_copy_paste,
        pdf_token_hash, payer, shop_name, description)
     SELECT * FROM unnest(${BOLETO_COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})`,
    BOLETO_COLUMNS.map(([column]) =>
      boletos.map((b) => (column === 'payer_json' ? JSON.stringify(b.payer) : b[column])),
    ),
    { prepare: 'boletos_insert_v1' },
  );
}

export async function boletoOfSale(db: Queryable, saleId: number): Promise<BoletoRow | null> {
  return rowOrNull<BoletoRow>(db, `SELECT ${COLUMNS} FROM boletos WHERE sale_id = $1`, [saleId]);
}

export async function boletoByTokenHash(db: Queryable, hash: Buffer): Promise<BoletoRow | null> {
  // the payer's link: every fetch of a PDF reads it, cached or not
  return rowOrNull<BoletoRow>(db, `SELECT ${COLUMNS} FROM boletos WHERE pdf_token_hash = $1`, [hash], {
    prepare: 'boleto_by_token_hash_v1',
  });
}

export async function boletoByTxid(db: Queryable, txid: string): Promise<BoletoRow | null> {
  return rowOrNull<BoletoRow>(db, `SELECT ${COLUMNS} FROM boletos WHERE txid = $1`, [txid]);
}

export async function boletoByNossoNumero(
  db: Queryable,
  beneficiary: string,
  nossoNumero: string,
): Promise<BoletoRow | null> {
  return rowOrNull<BoletoRow>(
    db,
    `SELECT ${COLUMNS} FROM boletos WHERE beneficiary = $1 AND nosso_numero = $2`,
    [beneficiary, nossoNumero],
  );
}

/** The beneficiary's boletos of these nossos números, in one read (a return file's chunk). */
export async function boletosByNossoNumeros(
  db: Queryable,
  beneficiary: string,
  nossoNumeros: string[],
): Promise<BoletoRow[]> {
  return db.query<BoletoRow>(
    `SELECT ${COLUMNS} FROM boletos WHERE beneficiary = $1 AND nosso_numero = ANY($2::text[])`,
    [beneficiary, [...new Set(nossoNumeros)]],
  );
}

/** The beneficiary's boletos issued on a São Paulo day, in nosso número order (the day's remessa). */
export async function boletosIssuedOn(db: Queryable, beneficiary: string, day: string): Promise<BoletoRow[]> {
  return db.query<BoletoRow>(
    `SELECT ${COLUMNS} FROM boletos
      WHERE beneficiary = $1 AND (created_at AT TIME ZONE 'America/Sao_Paulo') >= $2::date
        AND (created_at AT TIME ZONE 'America/Sao_Paulo') < $2::date + 1
      ORDER BY nosso_numero`,
    [beneficiary, day],
  );
}

/**
 * The boletos a remessa of `day` asks the bank to take down, before their terms are read: registered by an
 * earlier day's file, never liquidated by the bank, and not asked already (or asked by this day's own file,
 * which is written again alike). Their last payable day is within a few days of due date + daysAfterDue
 * (moved to a business day); the caller decides it exactly.
 */
export async function boletosRegisteredBefore(
  db: Queryable,
  beneficiary: string,
  day: string,
): Promise<BoletoRow[]> {
  return db.query<BoletoRow>(
    `SELECT ${COLUMNS} FROM boletos
      WHERE beneficiary = $1 AND due_date + days_after_due >= $2::date - 10
        -- two arms, each found by its own partial index (migration 280)
        AND ((registered_on IS NOT NULL AND baixa_on IS NULL AND cnab_paid_on IS NULL
              AND registered_on < $2::date)
          OR (baixa_on IS NOT NULL AND baixa_on = $2::date AND registered_on < $2::date))
      ORDER BY nosso_numero`,
    [beneficiary, day],
  );
}

/** Records what a remessa of `day` told the bank: these boletos registered, those asked to be taken down. */
export async function markSentToBank(
  tx: Queryable,
  day: string,
  registered: number[],
  takenDown: number[],
): Promise<void> {
  await tx.query(
    `UPDATE boletos SET registered_on = COALESCE(registered_on, $1::date),
            baixa_on = CASE WHEN sale_id = ANY($3::bigint[]) THEN COALESCE(baixa_on, $1::date) ELSE baixa_on END
      WHERE sale_id = ANY($2::bigint[]) OR sale_id = ANY($3::bigint[])`,
    [day, registered, takenDown],
  );
}

/** Whether a boleto was paid at a bank (a liquidação of a return file credited it), not by its Pix. */
export async function paidAtBank(q: Queryable, saleId: number): Promise<boolean> {
  const [row] = await q.query<{ at_bank: boolean }>(
    'SELECT cnab_paid_on IS NOT NULL AS at_bank FROM boletos WHERE sale_id = $1',
    [saleId],
  );
  return row?.at_bank ?? false;
}

/** The liquidações that credited these boletos (a later report of the same one is not a second payment). */
export async function markPaidByCnab(
  tx: Queryable,
  paid: { saleId: number; paidOn: string; amount: number }[],
): Promise<void> {
  if (paid.length === 0) return;
  await tx.query(
    `UPDATE boletos b SET cnab_paid_on = u.paid_on, cnab_paid_amount = u.amount
       FROM unnest($1::bigint[], $2::date[], $3::bigint[]) AS u(sale_id, paid_on, amount)
      WHERE b.sale_id = u.sale_id`,
    [paid.map((p) => p.saleId), paid.map((p) => p.paidOn), paid.map((p) => p.amount)],
  );
}
