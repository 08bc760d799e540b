-- Card sales: the account's card fee rates, a refused sale's reason on the Sale object, and the acquirer's side
-- of each card sale (card_payments, the cards module's).
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS card_fee_percent_e4 integer
  CHECK (card_fee_percent_e4 BETWEEN 0 AND 1000000);
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS card_installment_fee_percent_e4 integer NOT NULL DEFAULT 0
  CHECK (card_installment_fee_percent_e4 BETWEEN 0 AND 1000000);

ALTER TABLE sales ADD COLUMN IF NOT EXISTS refusal_reason json;

-- one row per card sale: the authorization at the acquirer (MerchantOrderId = the sale's uuid)
CREATE TABLE IF NOT EXISTS card_payments (
  sale_id bigint PRIMARY KEY,
  order_id uuid NOT NULL UNIQUE,
  account_id bigint NOT NULL,
  acquirer text NOT NULL,
  card_token_id bigint NOT NULL REFERENCES card_tokens (id),
  payment_type text NOT NULL CHECK (payment_type IN ('CreditCard', 'DebitCard')),
  installments smallint NOT NULL CHECK (installments BETWEEN 1 AND 12),
  capture boolean NOT NULL,
  -- authorizing: asked, outcome not known yet; the rest as the acquirer reported them
  state text NOT NULL CHECK (state IN ('authorizing', 'authorized', 'captured', 'denied', 'voided', 'failed')),
  payment_id text,
  authorized_amount bigint NOT NULL CHECK (authorized_amount > 0),
  captured_amount bigint,
  return_code text,
  return_message text,
  created_at timestamptz NOT NULL DEFAULT now(),
  authorized_at timestamptz,
  captured_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS card_payments_open_idx ON card_payments (state, created_at)
  WHERE state IN ('authorizing', 'authorized');

-- A refused card sale's reason on its Sale object: appended by a trigger of its own, which PostgreSQL fires after
-- sales_public_json (same timing, names in order), so the function that builds the object stays as its own
-- migrations define it.
CREATE OR REPLACE FUNCTION sales_public_json_refusal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.refusal_reason IS NOT NULL THEN
    NEW.public_json := left(NEW.public_json, -1) || ',"refusalReason":' || NEW.refusal_reason::text || '}';
  END IF;
  RETURN NEW;
END
$$;
DROP TRIGGER IF EXISTS sales_public_json_refusal ON sales;
CREATE TRIGGER sales_public_json_refusal BEFORE INSERT OR UPDATE ON sales
  FOR EACH ROW EXECUTE FUNCTION sales_public_json_refusal();
