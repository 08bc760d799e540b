-- Card money is not available at once: the net of each installment of a captured card sale sits in the merchant's
-- third bucket, `receivable`, until its date, when a daily job moves it to `available` (decisions.md, "Cards").
ALTER TABLE ledger_accounts DROP CONSTRAINT IF EXISTS ledger_accounts_bucket_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_bucket_check
  CHECK (bucket IN ('available', 'blocked', 'receivable'));
INSERT INTO ledger_accounts (code, account_id, bucket)
  SELECT 'merchant:' || account_id || ':receivable', account_id, 'receivable'
    FROM ledger_accounts WHERE bucket = 'available'
  ON CONFLICT DO NOTHING;

-- one row per installment: its net, its date (São Paulo calendar), and when it reached available
CREATE TABLE IF NOT EXISTS receivables (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id bigint NOT NULL,
  sale_id bigint NOT NULL,
  sale_uuid uuid NOT NULL,
  installment smallint NOT NULL CHECK (installment BETWEEN 1 AND 12),
  installments smallint NOT NULL CHECK (installments BETWEEN 1 AND 12),
  amount bigint NOT NULL CHECK (amount >= 0),
  due_date date NOT NULL,
  settled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (sale_id, installment)
);
CREATE INDEX IF NOT EXISTS receivables_due_idx ON receivables (due_date) WHERE settled_at IS NULL;
CREATE INDEX IF NOT EXISTS receivables_account_idx ON receivables (account_id, due_date);
