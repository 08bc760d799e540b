-- A manual resend of a delivery still waiting for an automatic retry takes that retry's place: sent at once (with
-- X-Service-Redelivery), and if it fails the automatic schedule goes on, up to the contract's 3 attempts in all.
-- Before, a failed resend ended the delivery FAILED with a retry still owed to it (docs/decisions.md, resends).
ALTER TABLE notification_deliveries ADD COLUMN IF NOT EXISTS resent_in_schedule boolean NOT NULL DEFAULT false;
