-- A month of the ledger or the audit log refuses TRUNCATE on its own, as its parent does (migration 271): a
-- statement trigger on a partitioned table fires only for a TRUNCATE named at the parent, and
-- `TRUNCATE audit_log_p202611` emptied a month. UPDATE and DELETE were refused already (row triggers are
-- cloned to every partition). New months get the trigger when month_partitions_ensure makes them; a month
-- detached for archive keeps it (an archive is not edited either).
CREATE OR REPLACE FUNCTION month_partitions_ensure(parent text, first int, last int) RETURNS int LANGUAGE plpgsql AS $$
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
    -- every table ranged this way is append-only (journal_entries, postings, audit_log)
    EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %I FOR EACH STATEMENT '
                   'EXECUTE FUNCTION refuse_append_only_change()', child || '_no_truncate', child);
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)',
                   parent, child, m::bigint << 40, (m + 1)::bigint << 40);
    made := made + 1;
  END LOOP;
  RETURN made;
END;
$$;

DO $$
DECLARE
  child regclass;
BEGIN
  FOR child IN
    SELECT i.inhrelid::regclass FROM pg_inherits i
     WHERE i.inhparent IN ('journal_entries'::regclass, 'postings'::regclass, 'audit_log'::regclass)
  LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_trigger t
                    WHERE t.tgrelid = child AND t.tgname = child::text || '_no_truncate') THEN
      EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %s FOR EACH STATEMENT '
                     'EXECUTE FUNCTION refuse_append_only_change()', child::text || '_no_truncate', child);
    END IF;
  END LOOP;
END;
$$;
