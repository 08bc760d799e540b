-- The ledger (journal entries, postings) and the audit log partitioned by month, like notification history
-- (migration 270), but never dropped: a month can be detached for archive (docs/operations.md, "Retention").
-- An entry's id and an audit row's id are (the month of their transaction << 40) + their sequence, so the id
-- says the partition; a posting lives in its entry's month (ranged by entry_id, the column the statement's
-- pages and the checks read it by). Rows from before this migration are below 2^40: the `_legacy` partitions.

-- Creates `<parent>_pYYYYMM` for the months [first, last] that lack one, on a table ranged by a month-coded
-- bigint; as a table of its own, attached afterwards (reads and writes go on meanwhile). Returns how many.
CREATE FUNCTION month_partitions_ensure(parent text, first int, last int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  m int;
  child text;
  made int := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(727274271, hashtext(parent));
  FOR m IN first..last LOOP
    child := parent || '_p' || to_char(partition_month_start(m) AT TIME ZONE 'UTC', 'YYYYMM');
    CONTINUE WHEN to_regclass(child) IS NOT NULL;
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', child, parent);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)',
                   parent, child, m::bigint << 40, (m + 1)::bigint << 40);
    made := made + 1;
  END LOOP;
  RETURN made;
END;
$$;

-- a month-coded id: the month of the transaction's start, then the sequence
CREATE FUNCTION month_id(seq regclass) RETURNS bigint LANGUAGE sql VOLATILE AS $$
  SELECT (partition_month(now())::bigint << 40) + nextval(seq)
$$;

ALTER TABLE journal_entries RENAME TO journal_entries_legacy;
ALTER INDEX journal_entries_pkey RENAME TO journal_entries_legacy_pkey;
DROP TRIGGER journal_entries_no_change ON journal_entries_legacy;
DROP TRIGGER journal_entries_no_truncate ON journal_entries_legacy;
ALTER SEQUENCE journal_entries_id_seq OWNED BY NONE;
ALTER TABLE journal_entries_legacy ALTER COLUMN id DROP DEFAULT;
CREATE TABLE journal_entries (
  id bigint NOT NULL DEFAULT month_id('journal_entries_id_seq'),
  kind text NOT NULL,
  ref_type text NOT NULL,
  ref_id bigint NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id)
) PARTITION BY RANGE (id);
CREATE INDEX journal_entries_created_p_idx ON journal_entries (created_at, id);
CREATE INDEX journal_entries_ref_p_idx ON journal_entries (ref_type, ref_id);
CREATE TRIGGER journal_entries_no_change BEFORE UPDATE OR DELETE ON journal_entries
  FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER journal_entries_no_truncate BEFORE TRUNCATE ON journal_entries
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only_change();
ALTER TABLE journal_entries ATTACH PARTITION journal_entries_legacy FOR VALUES FROM (MINVALUE) TO (1099511627776);

-- a posting is found by its entry (the primary key leads with it: the old entry_id index is that key now)
ALTER TABLE postings RENAME TO postings_legacy;
ALTER INDEX postings_pkey RENAME TO postings_legacy_pkey;
DROP TRIGGER postings_no_change ON postings_legacy;
DROP TRIGGER postings_no_truncate ON postings_legacy;
ALTER SEQUENCE postings_id_seq OWNED BY NONE;
CREATE TABLE postings (
  id bigint NOT NULL DEFAULT nextval('postings_id_seq'),
  entry_id bigint NOT NULL,
  ledger_account_id bigint NOT NULL,
  amount bigint NOT NULL,
  PRIMARY KEY (entry_id, id),
  CONSTRAINT postings_amount_check CHECK (amount <> 0)
) PARTITION BY RANGE (entry_id);
CREATE INDEX postings_account_entry_amount_p_idx ON postings (ledger_account_id, entry_id) INCLUDE (amount);
CREATE TRIGGER postings_no_change BEFORE UPDATE OR DELETE ON postings
  FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER postings_no_truncate BEFORE TRUNCATE ON postings
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only_change();
ALTER TABLE postings_legacy DROP CONSTRAINT postings_legacy_pkey;
DROP INDEX postings_entry_idx;
ALTER TABLE postings ATTACH PARTITION postings_legacy FOR VALUES FROM (MINVALUE) TO (1099511627776);

ALTER TABLE audit_log RENAME TO audit_log_legacy;
ALTER INDEX audit_log_pkey RENAME TO audit_log_legacy_pkey;
DROP TRIGGER audit_log_no_update ON audit_log_legacy;
DROP TRIGGER audit_log_no_truncate ON audit_log_legacy;
ALTER SEQUENCE audit_log_id_seq OWNED BY NONE;
ALTER TABLE audit_log_legacy ALTER COLUMN id DROP DEFAULT;
CREATE TABLE audit_log (
  id bigint NOT NULL DEFAULT month_id('audit_log_id_seq'),
  account_id bigint NOT NULL REFERENCES accounts (id),
  at timestamptz NOT NULL DEFAULT now(),
  actor_type text NOT NULL,
  actor_id bigint,
  actor_label text NOT NULL,
  action text NOT NULL,
  target text,
  ip text,
  user_agent text,
  PRIMARY KEY (id),
  CONSTRAINT audit_log_actor_type_check CHECK (actor_type = ANY (ARRAY['user', 'api_key', 'operator']))
) PARTITION BY RANGE (id);
CREATE INDEX audit_log_account_p_idx ON audit_log (account_id, id DESC);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION refuse_append_only_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_append_only_change();
ALTER TABLE audit_log ATTACH PARTITION audit_log_legacy FOR VALUES FROM (MINVALUE) TO (1099511627776);

SELECT month_partitions_ensure(t, partition_month(now()), partition_month(now()) + 3)
  FROM unnest(ARRAY['journal_entries', 'postings', 'audit_log']) AS t;
