-- One capture of a card sale speaks to the acquirer at a time: a request claims the payment until this time
-- (as refund_claimed_until does for refunds), so two concurrent captures never both answer for one payment.
ALTER TABLE card_payments ADD COLUMN IF NOT EXISTS capture_claimed_until timestamptz;
