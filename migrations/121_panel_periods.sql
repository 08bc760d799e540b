-- A panel period (from/to) becomes id bounds: the first row created at or after each bound, found in
-- O(log n) per account. (account_id, created_at, id) gives that row without a sort; for sales it replaces
-- the (account_id, created_at DESC) index of migration 020, which nothing else reads.
CREATE INDEX sales_account_created_idx ON sales (account_id, created_at, id);
DROP INDEX sales_account_idx;
CREATE INDEX withdrawals_account_created_idx ON withdrawals (account_id, created_at, id);
