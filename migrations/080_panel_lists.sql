-- Panel lists (sales, withdrawals, statement) page newest first by id with a cursor, for accounts with
-- millions of rows: each filter the panel offers has an index that yields its rows in id order.
CREATE INDEX sales_account_id_idx ON sales (account_id, id);
CREATE INDEX sales_account_status_idx ON sales (account_id, status, id);
CREATE INDEX sales_account_method_idx ON sales (account_id, payment_method, id);
CREATE INDEX sales_account_email_idx ON sales (account_id, lower(customer ->> 'email'));
CREATE INDEX sales_account_document_idx ON sales (account_id, (customer ->> 'document'));
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX sales_customer_name_trgm_idx ON sales USING gin (lower(customer ->> 'name') gin_trgm_ops);
CREATE INDEX withdrawals_account_status_idx ON withdrawals (account_id, status, id);
-- the statement: one account's postings in entry order, and entry ids bounded by time
CREATE INDEX postings_account_entry_idx ON postings (ledger_account_id, entry_id);
CREATE INDEX journal_entries_created_idx ON journal_entries (created_at, id);
