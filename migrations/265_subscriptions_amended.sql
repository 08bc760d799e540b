-- Subscriptions, amended (docs/decisions.md, "Subscriptions"): a new subscription is `incomplete` until its
-- first period is paid, `incomplete_expired` when it is not; `next_charge_at` is the next charge the merchant
-- reads, never a scheduler's lease, which has a column of its own; a cancellation says why.
ALTER TABLE subscriptions DROP CONSTRAINT IF EXISTS subscriptions_status_check;
ALTER TABLE subscriptions ADD CONSTRAINT subscriptions_status_check CHECK (status IN (
  'incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'unpaid', 'canceled'));
-- while a try is being made (or its sale awaits an outcome) the scheduler looks again at lease_until
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS lease_until timestamptz;
-- an incomplete subscription whose first period is not paid by then expires
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS incomplete_expires_at timestamptz;
-- requested | unpaid | account_closed
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS cancel_reason text;
UPDATE subscriptions SET cancel_reason = 'requested' WHERE status = 'canceled' AND cancel_reason IS NULL;
-- a suspended account's subscriptions charge nothing until it is active again
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS account_paused boolean NOT NULL DEFAULT false;
UPDATE subscriptions s SET account_paused = true
  FROM accounts a WHERE a.id = s.account_id AND a.status = 'suspended';
-- a closed account's subscriptions are canceled
UPDATE subscriptions s SET status = 'canceled', cancel_reason = 'account_closed', canceled_at = now(),
       next_charge_at = NULL
  FROM accounts a WHERE a.id = s.account_id AND a.status = 'closed' AND s.status <> 'canceled';
DROP INDEX IF EXISTS subscriptions_due_idx;
CREATE INDEX IF NOT EXISTS subscriptions_scan_idx ON subscriptions ((COALESCE(lease_until, next_charge_at)))
  WHERE COALESCE(lease_until, next_charge_at) IS NOT NULL AND NOT account_paused;
CREATE INDEX IF NOT EXISTS subscriptions_incomplete_idx ON subscriptions (incomplete_expires_at)
  WHERE status = 'incomplete';
-- an expired incomplete subscription lets its Pix Automático mandate go, as a canceled one does
DROP INDEX IF EXISTS subscriptions_recurrence_idx;
CREATE UNIQUE INDEX IF NOT EXISTS subscriptions_recurrence_idx ON subscriptions (recurrence_id)
  WHERE recurrence_id IS NOT NULL AND status NOT IN ('canceled', 'incomplete_expired');
