-- A PIX subscription charged through the customer's Pix Automático mandate (decisions.md, "Subscriptions and
-- saved cards"): the recurrence it debits. One mandate pays for one live subscription at a time.
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS recurrence_id bigint REFERENCES recurrences (id);
CREATE UNIQUE INDEX IF NOT EXISTS subscriptions_recurrence_idx ON subscriptions (recurrence_id)
  WHERE recurrence_id IS NOT NULL AND status <> 'canceled';
-- mandates looked for by their payer's document when a PIX subscription is made or charged
CREATE INDEX IF NOT EXISTS recurrences_payer_idx ON recurrences (account_id, (customer ->> 'document'));
