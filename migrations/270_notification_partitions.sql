-- Notification history (facts, deliveries, attempts) partitioned by month, so retention drops a month whole
-- instead of deleting it row by row (docs/decisions.md, "Notification history by month").
-- A month is numbered from January 2000 (UTC): partition_month(). The three tables share the month of the
-- FACT: a fact's id is a UUIDv7 and its first 48 bits are its time, so the facts are ranged by id; a delivery's
-- id is (the month of its fact << 40) + a sequence, so a fact, its deliveries and their attempts always land in
-- partitions of the same month, dropped together, and a delivery's id alone says which partition holds it.
-- What was there before this migration stays where it is, attached as the `_legacy` partitions.

CREATE FUNCTION partition_month(at timestamptz) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ((extract(year FROM at AT TIME ZONE 'UTC')::int - 2000) * 12
          + extract(month FROM at AT TIME ZONE 'UTC')::int - 1)
$$;

CREATE FUNCTION partition_month_start(month int) RETURNS timestamptz LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT make_timestamptz(2000 + month / 12, month % 12 + 1, 1, 0, 0, 0, 'UTC')
$$;

-- the smallest UUIDv7 of a month: its first 48 bits are the month's first millisecond, the rest zero
CREATE FUNCTION partition_month_uuid(month int) RETURNS uuid LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-0000-0000-000000000000')::uuid
    FROM (SELECT lpad(to_hex((extract(epoch FROM partition_month_start(month)) * 1000)::bigint), 12, '0') AS h) x
$$;

-- the month a fact's UUIDv7 was made in; any other kind of UUID has no month and is refused
CREATE FUNCTION uuid_partition_month(id uuid) RETURNS int LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  IF substr(id::text, 15, 1) <> '7' THEN
    RAISE EXCEPTION 'notification fact id % is not a UUIDv7', id USING ERRCODE = 'invalid_parameter_value';
  END IF;
  RETURN partition_month(
    to_timestamp(('x' || substr(replace(id::text, '-', ''), 1, 12))::bit(48)::bigint / 1000.0));
END;
$$;

-- a new delivery's id: the month of its fact, then the sequence
CREATE FUNCTION notification_delivery_id(event_id uuid) RETURNS bigint LANGUAGE sql VOLATILE AS $$
  SELECT (uuid_partition_month(event_id)::bigint << 40) + nextval('notification_deliveries_id_seq')
$$;

-- Creates the partitions of the months [first, last] that do not exist yet, each as a table of its own
-- attached afterwards (ATTACH takes a lock that lets reads and writes go on; CREATE … PARTITION OF would not).
-- A delivery's uniqueness per (fact, webhook) and per fact's postback is kept by each partition's unique
-- indexes: a fact's deliveries are all in its month's partition. Returns how many months were created.
CREATE FUNCTION notification_partitions_ensure(first int, last int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  m int;
  suffix text;
  made int := 0;
BEGIN
  PERFORM pg_advisory_xact_lock(727274270);
  FOR m IN first..last LOOP
    suffix := to_char(partition_month_start(m) AT TIME ZONE 'UTC', 'YYYYMM');
    CONTINUE WHEN to_regclass('notification_events_p' || suffix) IS NOT NULL;
    EXECUTE format('CREATE TABLE %I (LIKE notification_events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)',
                   'notification_events_p' || suffix);
    EXECUTE format('CREATE TABLE %I (LIKE notification_deliveries INCLUDING DEFAULTS INCLUDING CONSTRAINTS)',
                   'notification_deliveries_p' || suffix);
    EXECUTE format('CREATE UNIQUE INDEX %I ON %I (event_id, webhook_id) WHERE webhook_id IS NOT NULL',
                   'notification_deliveries_p' || suffix || '_webhook_uq', 'notification_deliveries_p' || suffix);
    EXECUTE format('CREATE UNIQUE INDEX %I ON %I (event_id) WHERE webhook_id IS NULL',
                   'notification_deliveries_p' || suffix || '_postback_uq', 'notification_deliveries_p' || suffix);
    EXECUTE format('CREATE TABLE %I (LIKE notification_attempts INCLUDING DEFAULTS INCLUDING CONSTRAINTS)',
                   'notification_attempts_p' || suffix);
    EXECUTE format('ALTER TABLE notification_events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                   'notification_events_p' || suffix, partition_month_uuid(m), partition_month_uuid(m + 1));
    EXECUTE format('ALTER TABLE notification_deliveries ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)',
                   'notification_deliveries_p' || suffix, m::bigint << 40, (m + 1)::bigint << 40);
    EXECUTE format('ALTER TABLE notification_attempts ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)',
                   'notification_attempts_p' || suffix, m::bigint << 40, (m + 1)::bigint << 40);
    made := made + 1;
  END LOOP;
  RETURN made;
END;
$$;

-- the tables as they were become the legacy partitions
ALTER TABLE notification_events RENAME TO notification_events_legacy;
ALTER INDEX notification_events_pkey RENAME TO notification_events_legacy_pkey;
ALTER TABLE notification_deliveries RENAME TO notification_deliveries_legacy;
ALTER INDEX notification_deliveries_pkey RENAME TO notification_deliveries_legacy_pkey;
ALTER TABLE notification_attempts RENAME TO notification_attempts_legacy;
ALTER INDEX notification_attempts_pkey RENAME TO notification_attempts_legacy_pkey;
ALTER SEQUENCE notification_deliveries_id_seq OWNED BY NONE;
ALTER TABLE notification_deliveries_legacy ALTER COLUMN id DROP DEFAULT;

CREATE TABLE notification_events (
  id uuid NOT NULL,
  account_id bigint NOT NULL,
  event_type text NOT NULL,
  subject_type text NOT NULL,
  subject_id bigint NOT NULL,
  webhook_body text NOT NULL,
  postback_url text,
  postback_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  postback_host text,
  txid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  PRIMARY KEY (id),
  CONSTRAINT notification_events_subject_type_check CHECK (subject_type = ANY (ARRAY[
    'sale', 'withdrawal', 'cart', 'webhook', 'dispute', 'anticipation', 'subscription']))
) PARTITION BY RANGE (id);
CREATE INDEX notification_events_account_p_idx ON notification_events (account_id, created_at DESC, id DESC)
  WHERE event_type <> 'webhook.test';
CREATE INDEX notification_events_stream_p_idx ON notification_events (txid, id);
CREATE INDEX notification_events_subject_p_idx ON notification_events (subject_type, subject_id);

-- id has no default: every insert names it, notification_delivery_id(event_id)
CREATE TABLE notification_deliveries (
  id bigint NOT NULL,
  event_id uuid NOT NULL,
  webhook_id bigint,
  kind text NOT NULL,
  target_host text NOT NULL,
  status text NOT NULL DEFAULT 'PENDING',
  attempts integer NOT NULL DEFAULT 0,
  status_code integer,
  error text,
  ticket uuid,
  redelivery boolean NOT NULL DEFAULT false,
  next_attempt_at timestamptz,
  lease_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_attempt_at timestamptz,
  account_id bigint NOT NULL,
  interrupted boolean NOT NULL DEFAULT false,
  PRIMARY KEY (id),
  CONSTRAINT notification_deliveries_check CHECK ((kind = 'webhook') = (webhook_id IS NOT NULL)),
  CONSTRAINT notification_deliveries_kind_check CHECK (kind = ANY (ARRAY['webhook', 'postback'])),
  CONSTRAINT notification_deliveries_status_check CHECK (status = ANY (ARRAY[
    'PENDING', 'DELIVERED', 'FAILED', 'SKIPPED']))
) PARTITION BY RANGE (id);
CREATE INDEX notification_deliveries_due_host_p_idx ON notification_deliveries (target_host, next_attempt_at)
  WHERE status = 'PENDING' AND ticket IS NOT NULL;
CREATE INDEX notification_deliveries_due_p_idx ON notification_deliveries (next_attempt_at)
  WHERE status = 'PENDING' AND ticket IS NOT NULL;
CREATE INDEX notification_deliveries_leased_p_idx ON notification_deliveries (lease_until)
  WHERE status = 'PENDING' AND ticket IS NULL;
CREATE INDEX notification_deliveries_webhook_created_p_idx ON notification_deliveries (webhook_id, created_at)
  WHERE webhook_id IS NOT NULL;
CREATE INDEX notification_deliveries_webhook_p_idx ON notification_deliveries (webhook_id, id DESC);

CREATE TABLE notification_attempts (
  delivery_id bigint NOT NULL,
  attempt integer NOT NULL,
  event_type text NOT NULL,
  url text NOT NULL,
  redelivery boolean NOT NULL,
  status_code integer,
  error text,
  duration_ms integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (delivery_id, attempt)
) PARTITION BY RANGE (delivery_id);

-- the history so far, when there is any (a new database has none): deliveries numbered before this migration
-- are all below 2^40 (month 0); facts below the current month stay in the old table, the newer ones move to
-- their months' partitions (made here)
SELECT notification_partitions_ensure(partition_month(now()), partition_month(now()) + 3);
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM notification_deliveries_legacy) OR EXISTS (SELECT 1 FROM notification_attempts_legacy) THEN
    ALTER TABLE notification_deliveries ATTACH PARTITION notification_deliveries_legacy
      FOR VALUES FROM (MINVALUE) TO (1099511627776);
    ALTER TABLE notification_attempts ATTACH PARTITION notification_attempts_legacy
      FOR VALUES FROM (MINVALUE) TO (1099511627776);
  ELSE
    DROP TABLE notification_deliveries_legacy, notification_attempts_legacy;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM notification_events_legacy) THEN
    DROP TABLE notification_events_legacy;
    RETURN;
  END IF;
  CREATE TEMPORARY TABLE notification_events_moved ON COMMIT DROP AS
    SELECT * FROM notification_events_legacy WHERE id >= partition_month_uuid(partition_month(now()));
  DELETE FROM notification_events_legacy WHERE id >= partition_month_uuid(partition_month(now()));
  -- a fact from before UUIDv7 ids (development builds before 2026-11-21) has a random id: one past 2100 goes to a
  -- partition of its own, one between now and 2100 (under 1 % of them) to the month its first 48 bits read as
  CREATE TABLE notification_events_legacy_high (LIKE notification_events INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
  ALTER TABLE notification_events ATTACH PARTITION notification_events_legacy_high
    FOR VALUES FROM (partition_month_uuid(1200)) TO (MAXVALUE);
  PERFORM notification_partitions_ensure(m, m)
     FROM (SELECT DISTINCT partition_month(
                  to_timestamp(('x' || substr(replace(id::text, '-', ''), 1, 12))::bit(48)::bigint / 1000.0)) AS m
             FROM notification_events_moved WHERE id < partition_month_uuid(1200)) months;
  INSERT INTO notification_events SELECT * FROM notification_events_moved;
  ALTER TABLE notification_events ATTACH PARTITION notification_events_legacy
    FOR VALUES FROM (MINVALUE) TO (partition_month_uuid(partition_month(now())));
END;
$$;
