-- A payer's own charge (docs/decisions.md, "Checkout"): a PIX charge opened on a payment link or a checkout
-- session keeps the SHA-256 of a random token the payer's page holds. The charge is shown again only to a request
-- carrying that token, never to another payer who types the same CPF.
ALTER TABLE sales ADD COLUMN IF NOT EXISTS payer_token_hash bytea;
