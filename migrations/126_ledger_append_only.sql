-- The ledger is append-only, as the audit log is (migration 090): journal entries and postings refuse UPDATE,
-- DELETE and TRUNCATE; ledger accounts refuse DELETE, TRUNCATE and any change of what identifies them (id,
-- code, account, bucket: their balance is updated in place, and nothing else).
-- With postings carrying no foreign keys (migration 125), this is what keeps a posting's entry and ledger
-- account in existence: postings are only inserted by statements that find both, and neither can go away.
-- Row triggers fire only on the refused operations, so the inserts of every settlement and cashout pay
-- nothing for them. One refusal serves every append-only table: the audit log's triggers move to it (its
-- message is the one audit_log_append_only raised).
CREATE FUNCTION refuse_append_only_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;

DROP TRIGGER audit_log_no_update ON audit_log;
DROP TRIGGER audit_log_no_truncate ON audit_log;
DROP FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only_change();

CREATE TRIGGER journal_entries_no_change BEFORE UPDATE OR DELETE ON journal_entries
  FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER journal_entries_no_truncate BEFORE TRUNCATE ON journal_entries
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER postings_no_change BEFORE UPDATE OR DELETE ON postings
  FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER postings_no_truncate BEFORE TRUNCATE ON postings
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER ledger_accounts_no_delete BEFORE DELETE ON ledger_accounts
  FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER ledger_accounts_no_change_of_identity BEFORE UPDATE OF id, code, account_id, bucket ON ledger_accounts
  FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER ledger_accounts_no_truncate BEFORE TRUNCATE ON ledger_accounts
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only_change();
