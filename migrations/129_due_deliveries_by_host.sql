-- Due deliveries of one host, oldest first: fan-out asks whether a host already has attempts waiting their turn,
-- and claims no fresh first attempt for it while it does, so a host slower than its facts is served in due order
-- (first attempts and retries alike) rather than newest first while its backlog starves.
CREATE INDEX notification_deliveries_due_host_idx ON notification_deliveries (target_host, next_attempt_at)
  WHERE status = 'PENDING' AND ticket IS NOT NULL;
