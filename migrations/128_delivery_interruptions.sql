-- A delivery's attempt cut off by its worker process dying is retried once more than the 3 attempts: most such
-- attempts were claimed and waiting in that process's memory, never sent, and counting them left deliveries
-- FAILED that no receiver ever saw. `interrupted` records that the one extra attempt was given (a manual resend
-- starts without it), so a delivery that keeps killing its worker still ends.
ALTER TABLE notification_deliveries ADD COLUMN interrupted boolean NOT NULL DEFAULT false;
