-- The statement walks one bucket's postings by entry id, and a period ending before today sums the
-- postings since its end: both read (ledger_account_id, entry_id, amount) from this index alone. It
-- supersedes the two indexes below (their columns are its prefix), so postings keep one index per use.
CREATE INDEX postings_account_entry_amount_idx ON postings (ledger_account_id, entry_id) INCLUDE (amount);
DROP INDEX postings_account_entry_idx;
DROP INDEX postings_account_idx;
