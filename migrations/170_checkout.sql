-- Payment links and checkout sessions (docs/decisions.md, "Payment links and checkout sessions"). The checkout
-- module owns `payment_links` and `checkout_sessions`; a sale made through one records which (no foreign key,
-- as elsewhere between domains), and its Sale object shows `paymentLinkId` / `checkoutSessionId` when set.
CREATE TABLE IF NOT EXISTS payment_links (
  id uuid PRIMARY KEY,
  -- the order of the account's list and its cursor
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  account_id bigint NOT NULL,
  -- random, unguessable: the public page's address (PUBLIC_URL/pay/<slug>)
  slug text NOT NULL UNIQUE,
  title text NOT NULL,
  description text,
  -- a fixed amount, or (null) the payer chooses between min_cents and max_cents
  amount_cents bigint CHECK (amount_cents > 0),
  min_cents bigint CHECK (min_cents > 0),
  max_cents bigint,
  methods text[] NOT NULL CHECK (cardinality(methods) > 0),
  max_installments int CHECK (max_installments BETWEEN 1 AND 12),
  expires_at timestamptz,
  max_uses int CHECK (max_uses > 0),
  success_url text,
  -- json, not jsonb: the merchant's keys come back in the order given
  metadata json NOT NULL,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT payment_links_fixed_or_range CHECK (
    (amount_cents IS NOT NULL AND min_cents IS NULL AND max_cents IS NULL)
    OR (amount_cents IS NULL AND min_cents IS NOT NULL AND max_cents IS NOT NULL AND min_cents <= max_cents))
);
CREATE INDEX IF NOT EXISTS payment_links_account_idx ON payment_links (account_id, seq DESC);

CREATE TABLE IF NOT EXISTS checkout_sessions (
  id uuid PRIMARY KEY,
  account_id bigint NOT NULL,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  items json NOT NULL,
  customer json,
  methods text[] NOT NULL CHECK (cardinality(methods) > 0),
  success_url text NOT NULL,
  cancel_url text,
  metadata json NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS checkout_sessions_account_idx ON checkout_sessions (account_id, created_at DESC);

ALTER TABLE sales ADD COLUMN IF NOT EXISTS payment_link_id uuid;
ALTER TABLE sales ADD COLUMN IF NOT EXISTS checkout_session_id uuid;
-- a link's uses and a session's sale are read by these
CREATE INDEX IF NOT EXISTS sales_payment_link_idx ON sales (payment_link_id) WHERE payment_link_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS sales_checkout_session_idx ON sales (checkout_session_id)
  WHERE checkout_session_id IS NOT NULL;

-- as in 160_boletos.sql, with the sale's link or session appended when it has one
CREATE OR REPLACE FUNCTION sales_public_json() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.public_json := (SELECT row_to_json(t)::text FROM (SELECT NEW.id AS "id", NEW.uuid AS "uuid",
      NEW.status AS "status", NEW.amount AS "amount", NEW.net_amount AS "netAmount",
      NEW.system_fee AS "systemFee", NEW.reserve_amount AS "reserveAmount", NEW.payment_method AS "paymentMethod",
      to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "date",
      to_char(NEW.completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "completedAt",
      NEW.customer AS "customer", NEW.items AS "items", NEW.pix_key AS "pixKey",
      NEW.card_last_four AS "cardLastFour", NEW.card_brand AS "cardBrand", NEW.boleto_code AS "boletoCode",
      NEW.external_transaction_id AS "externalTransactionId", NEW.installments AS "installments",
      NEW.shipping AS "shipping", NEW.metadata AS "metadata",
      to_char(NEW.charge_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "expiresAt") t);
  IF NEW.id_rec IS NOT NULL THEN
    NEW.public_json := left(NEW.public_json, -1) || ',"idRec":' || to_json(NEW.id_rec)::text
      || ',"contrato":' || to_json(COALESCE(NEW.contrato, ''))::text || '}';
  END IF;
  IF NEW.boleto IS NOT NULL THEN
    NEW.public_json := left(NEW.public_json, -1) || ',"paidAmount":' || COALESCE(NEW.paid_amount::text, 'null')
      || ',"boleto":' || NEW.boleto::text || '}';
  END IF;
  IF NEW.payment_link_id IS NOT NULL THEN
    NEW.public_json := left(NEW.public_json, -1) || ',"paymentLinkId":' || to_json(NEW.payment_link_id)::text || '}';
  END IF;
  IF NEW.checkout_session_id IS NOT NULL THEN
    NEW.public_json := left(NEW.public_json, -1) || ',"checkoutSessionId":'
      || to_json(NEW.checkout_session_id)::text || '}';
  END IF;
  RETURN NEW;
END
$$;
