-- Customers and saved cards (decisions.md, "Subscriptions and saved cards"): a merchant's customers, and cards
-- kept on file at the acquirer for them. A saved card is the card token it was saved from (its acquirer's
-- reusable token, sealed, with brand, last four and expiry): the gateway keeps no number.
CREATE TABLE IF NOT EXISTS customers (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE,
  account_id bigint NOT NULL REFERENCES accounts (id),
  name text NOT NULL,
  email text NOT NULL,
  document text NOT NULL,
  phone text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS customers_account_idx ON customers (account_id, id DESC);

CREATE TABLE IF NOT EXISTS saved_cards (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE,
  account_id bigint NOT NULL REFERENCES accounts (id),
  customer_id bigint NOT NULL REFERENCES customers (id),
  card_token_id bigint NOT NULL UNIQUE REFERENCES card_tokens (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX IF NOT EXISTS saved_cards_customer_idx ON saved_cards (customer_id) WHERE deleted_at IS NULL;
