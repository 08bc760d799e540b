-- A subscription's split (docs/decisions.md, "Subscriptions"): the charge's `split` rules, checked when the
-- subscription is made and carried by every period's sale.
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS split jsonb;
