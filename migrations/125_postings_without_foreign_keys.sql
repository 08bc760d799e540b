-- Postings drop their foreign keys, as facts and the delivery queue did (migrations 033, 035). Each check ran
-- per posting (a sale's payment writes three, a cashout two) and locked its parent rows FOR KEY SHARE: the
-- journal entry, and the merchant's balance row, which every concurrent settlement and cashout of that
-- merchant also locks, so PostgreSQL turned the overlapping locks into multixacts. Without them the
-- database spent ~9-13 % less time per cashout and per settlement (bench, docs/performance.md). Postings are
-- written only by the ledger's statements, each of which inserts the entry and finds the ledger accounts it
-- posts to in that same statement, and refuses the entry if one is not found; entries and ledger accounts are
-- never deleted (migration 126 makes the database refuse it); and `gateway ledger verify` reports any posting
-- whose entry or account is missing.
ALTER TABLE postings DROP CONSTRAINT postings_entry_id_fkey;
ALTER TABLE postings DROP CONSTRAINT postings_ledger_account_id_fkey;
