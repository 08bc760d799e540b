-- A card tokenized at the acquirer (POST /api/cards/tokens): the gateway keeps the acquirer's token (sealed under
-- SECRETS_KEY), the brand, the last four digits and the expiry; never the number or the CVV. The token the
-- merchant holds is kept as its sha256 only; it is used once, within 15 minutes.
CREATE TABLE IF NOT EXISTS card_tokens (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  account_id bigint NOT NULL REFERENCES accounts (id),
  acquirer text NOT NULL,
  acquirer_token_sealed text NOT NULL,
  brand text NOT NULL CHECK (brand IN ('visa', 'mastercard', 'amex', 'elo', 'hipercard')),
  last_four char(4) NOT NULL CHECK (last_four ~ '^[0-9]{4}$'),
  exp_month smallint NOT NULL CHECK (exp_month BETWEEN 1 AND 12),
  exp_year smallint NOT NULL CHECK (exp_year BETWEEN 2000 AND 2200),
  created_at timestamptz NOT NULL DEFAULT now(),
  used_at timestamptz,
  expires_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS card_tokens_expires_idx ON card_tokens (expires_at);
