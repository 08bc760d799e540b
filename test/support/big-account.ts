import type { Db, Queryable } from '../../src/platform/db/db.js';

export const NAMES = ['Maria Silva', 'João Souza', 'Ana Oliveira', 'Pedro Santos', 'Luiza Pereira'];
const SALE_STATUSES = ['PAGO', 'PENDENTE', 'EM_PROCESSAMENTO', 'CANCELADO', 'RECUSADO', 'ESTORNADO', 'FALHA'];
const METHODS = ['PIX', 'CREDIT_CARD', 'BOLETO', 'DEBIT_CARD'];
const WITHDRAWAL_STATUSES = ['COMPLETED', 'PENDING', 'PROCESSING', 'FAILED', 'CANCELLED'];

/**
 * Gives one account `n` sales, `n` withdrawals and `n` ledger lines (each a sale.paid entry: the net
 * amount into its available bucket, out of the processor), one second apart and ending now, each table
 * filled by one INSERT … SELECT over generate_series. Row i of each table has amount 1000 + i cents, so a
 * test knows the first and last rows of every export. The merchant balances are set to the postings' sum.
 * The three tables are filled at once, on three connections of the pool, each without its secondary indexes,
 * which are built again afterwards: one sorted build is far cheaper than a million index insertions.
 */
export async function fillAccount(db: Db, accountId: number, n: number): Promise<void> {
  const indexes = await dropSecondaryIndexes(db, BIG_TABLES);
  const start = `now() - interval '${n} seconds'`;
  const sales = db.query(
    `INSERT INTO sales (uuid, account_id, status, amount, system_fee, net_amount, reserve_amount,
                        payment_method, customer, items, processor, external_transaction_id, created_at,
                        updated_at)
     SELECT gen_random_uuid(), $1, ($2::text[])[1 + i % cardinality($2::text[])], 1000 + i, 100, 900 + i, 0,
            ($3::text[])[1 + i % cardinality($3::text[])],
            json_build_object('name', ($4::text[])[1 + i % cardinality($4::text[])] || ' ' || i,
                              'email', 'cliente' || i || '@example.com', 'document', lpad(i::text, 11, '0')),
            '[]'::json, 'bulk', 'bulk-' || $1::bigint || '-' || i, ${start} + i * interval '1 second',
            ${start} + i * interval '1 second'
       FROM generate_series(1, $5::int) i`,
    [accountId, SALE_STATUSES, METHODS, NAMES, n],
  );
  const withdrawals = db.query(
    `INSERT INTO withdrawals (uuid, account_id, amount, fee_fixed, fee_variable, net_amount, pix_key,
                              pix_key_type, status, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 1000 + i, 100, 0, 900 + i, lpad(i::text, 11, '0'), 'CPF',
            ($2::text[])[1 + i % cardinality($2::text[])], ${start} + i * interval '1 second',
            ${start} + i * interval '1 second'
       FROM generate_series(1, $3::int) i`,
    [accountId, WITHDRAWAL_STATUSES, n],
  );
  await Promise.all([sales, withdrawals, fillLedger(db, accountId, n, start)]);
  // two builds at a time, one per core of the machines the tests run on
  const queue = [...indexes];
  const builder = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) await db.query(next);
  };
  await Promise.all([builder(), builder()]);
}

/** The tables an account's history fills. */
export const BIG_TABLES = ['sales', 'withdrawals', 'journal_entries', 'postings'];

/** Drops the indexes of `tables` that back no constraint, and returns the statements that build them again. */
async function dropSecondaryIndexes(db: Queryable, tables: string[]): Promise<string[]> {
  const rows = await db.query<{ name: string; definition: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS definition
       FROM pg_index i
      WHERE i.indrelid = ANY($1::regclass[])
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [tables],
  );
  for (const { name } of rows) await db.query(`DROP INDEX ${name}`);
  // a partitioned table's index reads `ON ONLY`, which builds it on the parent alone (left invalid, with no
  // index on any partition): built without ONLY, it is built on every partition too
  return rows.map((r) => r.definition.replace(' ON ONLY ', ' ON '));
}

async function fillLedger(db: Queryable, accountId: number, n: number, start: string): Promise<void> {
  await db.query(
    `INSERT INTO ledger_accounts (code, account_id, bucket) VALUES
       ('merchant:' || $1::bigint || ':available', $1, 'available'), ('merchant:' || $1::bigint || ':blocked', $1, 'blocked')
     ON CONFLICT DO NOTHING`,
    [accountId],
  );
  await db.query(
    `WITH e AS (
       INSERT INTO journal_entries (kind, ref_type, ref_id, created_at)
       SELECT 'sale.paid', 'sale', i, ${start} + i * interval '1 second' FROM generate_series(1, $2::int) i
       RETURNING id, ref_id)
     INSERT INTO postings (entry_id, ledger_account_id, amount)
     SELECT e.id, p.ledger_account_id, p.amount
       FROM e CROSS JOIN LATERAL (VALUES
         ((SELECT id FROM ledger_accounts WHERE account_id = $1 AND bucket = 'available'), 1000 + e.ref_id),
         ((SELECT id FROM ledger_accounts WHERE code = 'system:processor'), -(1000 + e.ref_id))
       ) p(ledger_account_id, amount)`,
    [accountId, n],
  );
  await db.query(
    `UPDATE ledger_accounts la SET balance = COALESCE(
       (SELECT sum(amount) FROM postings p WHERE p.ledger_account_id = la.id), 0)
      WHERE la.account_id = $1`,
    [accountId],
  );
}
