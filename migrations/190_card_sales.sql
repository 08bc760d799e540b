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

-- as in 181_sale_refunds.sql, with a refused card sale's reason appended when it has one
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
      to_char(NEW.charge_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "expiresAt",
      NEW.refunded_amount AS "refundedAmount") t);
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
  IF NEW.refusal_reason IS NOT NULL THEN
    NEW.public_json := left(NEW.public_json, -1) || ',"refusalReason":' || NEW.refusal_reason::text || '}';
  END IF;
  RETURN NEW;
END
$$;
