-- Double-entry ledger. Every balance change is a journal entry whose postings sum to zero.
-- ledger_accounts.balance is maintained in the same transaction as the postings and can be re-derived
-- from them (`gateway ledger verify`). Merchant accounts have two buckets: available and blocked.
-- Sign convention: a positive posting increases what the ledger account holds; system accounts
-- (money outside the gateway) go negative as they feed merchant accounts.
CREATE TABLE ledger_accounts (
  id bigserial PRIMARY KEY,
  code text NOT NULL UNIQUE,
  account_id bigint REFERENCES accounts (id),
  bucket text CHECK (bucket IN ('available', 'blocked')),
  balance bigint NOT NULL DEFAULT 0,
  CHECK ((account_id IS NULL) = (bucket IS NULL))
);
CREATE UNIQUE INDEX ledger_accounts_merchant_idx ON ledger_accounts (account_id, bucket);

INSERT INTO ledger_accounts (code) VALUES
  ('system:processor'),
  ('system:payouts'),
  ('system:fees');

CREATE TABLE journal_entries (
  id bigserial PRIMARY KEY,
  kind text NOT NULL,
  ref_type text NOT NULL,
  ref_id bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX journal_entries_ref_idx ON journal_entries (ref_type, ref_id);

CREATE TABLE postings (
  id bigserial PRIMARY KEY,
  entry_id bigint NOT NULL REFERENCES journal_entries (id),
  ledger_account_id bigint NOT NULL REFERENCES ledger_accounts (id),
  amount bigint NOT NULL CHECK (amount <> 0)
);
CREATE INDEX postings_entry_idx ON postings (entry_id);
CREATE INDEX postings_account_idx ON postings (ledger_account_id);
