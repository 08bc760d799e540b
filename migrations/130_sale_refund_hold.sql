-- A refund the merchant asks for (POST /api/transactions/{id}/refund) holds the sale's money: what the refund
-- will take from `available` moves to `blocked` when it is asked, so it cannot be withdrawn meanwhile; the
-- processor's answer then takes it from `blocked` (ESTORNADO) or gives it back (the refund not made).
ALTER TABLE sales ADD COLUMN IF NOT EXISTS refund_held boolean NOT NULL DEFAULT false;
