-- Facts waiting to be fanned out, in the order they were recorded: a narrow row written with its fact and
-- deleted by the fan-out statement that creates the fact's deliveries. Marking the fact row instead rewrote
-- it (with its ~1 KB bodies) and its index entries: half of fan-out's WAL in the webhooks benchmark.
CREATE TABLE notification_outbox (
  seq bigserial PRIMARY KEY,
  event_id uuid NOT NULL,
  created_at timestamptz NOT NULL
);
INSERT INTO notification_outbox (event_id, created_at)
  SELECT id, created_at FROM notification_events WHERE fanned_out_at IS NULL ORDER BY created_at, id;
DROP INDEX notification_events_pending_idx;
ALTER TABLE notification_events DROP COLUMN fanned_out_at;
