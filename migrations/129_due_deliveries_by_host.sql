-- Due deliveries of one host, oldest first: fan-out asks whether a host already has attempts waiting their turn,
-- and claims no fresh first attempt for it while it does, so a host slower than its facts is served in due order
-- (first attempts and retries alike) rather than newest first while its backlog starves.
CREATE INDEX IF NOT EXISTS notification_deliveries_due_host_idx ON notification_deliveries (target_host, next_attempt_at)
  WHERE status = 'PENDING' AND ticket IS NOT NULL;
-- Built inside the migration's transaction, delivery writes wait while it builds (0.5 s for 400,000 rows). On a
-- large table build it beforehand without blocking, and this statement then finds it:
--   CREATE INDEX CONCURRENTLY notification_deliveries_due_host_idx ON notification_deliveries
--     (target_host, next_attempt_at) WHERE status = 'PENDING' AND ticket IS NOT NULL;
