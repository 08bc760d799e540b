-- Split payments (decisions.md, "Split payments"): a platform account's recipients, their own balances in the
-- ledger, the split rules a sale carries and the Sale object's `split`.

-- Recipients are reached only through their platform account (the recipients module's table).
CREATE TABLE recipients (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE,
  account_id bigint NOT NULL REFERENCES accounts (id),
  name text NOT NULL,
  document text NOT NULL,
  email text NOT NULL,
  pix_key text NOT NULL,
  pix_key_type text NOT NULL CHECK (pix_key_type IN ('CPF', 'CNPJ', 'EMAIL', 'PHONE', 'RANDOM')),
  transfer_interval text NOT NULL DEFAULT 'manual' CHECK (transfer_interval IN ('manual', 'daily', 'weekly')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX recipients_account_idx ON recipients (account_id, id DESC);

-- A recipient's balance is three ledger accounts of its own (`recipient:<id>:<bucket>`), maintained like a
-- merchant's. A ledger account belongs to a merchant, to a recipient, or to neither (a system account).
ALTER TABLE ledger_accounts ADD COLUMN IF NOT EXISTS recipient_id bigint;
ALTER TABLE ledger_accounts DROP CONSTRAINT IF EXISTS ledger_accounts_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_holder_check
  CHECK (num_nonnulls(account_id, recipient_id) <= 1
         AND ((account_id IS NULL AND recipient_id IS NULL) = (bucket IS NULL)));
CREATE UNIQUE INDEX IF NOT EXISTS ledger_accounts_recipient_idx ON ledger_accounts (recipient_id, bucket)
  WHERE recipient_id IS NOT NULL;
DROP TRIGGER IF EXISTS ledger_accounts_no_change_of_identity ON ledger_accounts;
CREATE TRIGGER ledger_accounts_no_change_of_identity
  BEFORE UPDATE OF id, code, account_id, recipient_id, bucket ON ledger_accounts
  FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();

-- move_balances' twin for recipients' rows, locked in (recipient, bucket) order after every merchant row a
-- statement moves (move_split_balances): the order postEntry locks them in.
CREATE OR REPLACE FUNCTION move_recipient_balances(recipient_ids bigint[], buckets text[], amounts bigint[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  moved integer;
BEGIN
  WITH d AS (SELECT * FROM unnest(recipient_ids, buckets, amounts) AS d(recipient_id, bucket, amount)),
  l AS (
    SELECT x.id, d.amount FROM ledger_accounts x JOIN d USING (recipient_id, bucket)
     ORDER BY x.recipient_id, x.bucket FOR NO KEY UPDATE OF x),
  b AS (UPDATE ledger_accounts x SET balance = x.balance + l.amount FROM l WHERE x.id = l.id RETURNING 1)
  SELECT count(*) INTO moved FROM b;
  IF moved <> cardinality(recipient_ids) THEN
    RAISE EXCEPTION 'recipient balance rows missing: % of %', moved, cardinality(recipient_ids);
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION move_split_balances(account_ids bigint[], buckets text[], amounts bigint[],
  recipient_ids bigint[], recipient_buckets text[], recipient_amounts bigint[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(account_ids) > 0 THEN
    PERFORM move_balances(account_ids, buckets, amounts);
  END IF;
  PERFORM move_recipient_balances(recipient_ids, recipient_buckets, recipient_amounts);
END
$$;

-- A recipient's card installments: the row names the recipient instead of a merchant account.
ALTER TABLE receivables ALTER COLUMN account_id DROP NOT NULL;
ALTER TABLE receivables ADD COLUMN IF NOT EXISTS recipient_id bigint;
ALTER TABLE receivables ADD CONSTRAINT receivables_holder_check CHECK (num_nonnulls(account_id, recipient_id) = 1);
-- a split card sale has installments of each party: one per installment and holder
ALTER TABLE receivables DROP CONSTRAINT IF EXISTS receivables_sale_id_installment_key;
CREATE UNIQUE INDEX IF NOT EXISTS receivables_sale_installment_holder_idx
  ON receivables (sale_id, installment, COALESCE(recipient_id, 0));
CREATE INDEX IF NOT EXISTS receivables_recipient_idx ON receivables (recipient_id, due_date)
  WHERE recipient_id IS NOT NULL;

-- A sale's split (the sales module's): the Sale object's `split` as JSON text (each party's rule and netCents,
-- the platform last) and the recipients' internal ids in the rules' order.
ALTER TABLE sales ADD COLUMN IF NOT EXISTS split json;
ALTER TABLE sales ADD COLUMN IF NOT EXISTS split_recipients bigint[];
CREATE INDEX IF NOT EXISTS sales_split_recipients_idx ON sales USING gin (split_recipients)
  WHERE split_recipients IS NOT NULL;

-- payment links and checkout sessions (the checkout module's) keep the split every sale of theirs carries
ALTER TABLE payment_links ADD COLUMN IF NOT EXISTS split json;
ALTER TABLE checkout_sessions ADD COLUMN IF NOT EXISTS split json;
