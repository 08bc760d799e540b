-- Risk rules (decisions.md, "Risk"): risk operators write rules that block a sale or hold a card authorization
-- for review. A sale keeps the decision taken on it; a card token keeps what rules may match of the card (its
-- BIN, its fingerprint — an HMAC, never the number — and the address it was typed from).
CREATE TABLE IF NOT EXISTS risk_rules (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL,
  conditions jsonb NOT NULL,
  action text NOT NULL CHECK (action IN ('review', 'block')),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE sales ADD COLUMN IF NOT EXISTS risk jsonb;

ALTER TABLE card_tokens ADD COLUMN IF NOT EXISTS bin char(6);
ALTER TABLE card_tokens ADD COLUMN IF NOT EXISTS fingerprint text;
ALTER TABLE card_tokens ADD COLUMN IF NOT EXISTS ip text;

-- an authorization held for a risk review: not captured until an operator approves it
ALTER TABLE card_payments ADD COLUMN IF NOT EXISTS risk_hold boolean NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS card_payments_risk_hold_idx ON card_payments (authorized_at) WHERE risk_hold;
CREATE INDEX IF NOT EXISTS reviews_sale_idx ON reviews (sale_id) WHERE sale_id IS NOT NULL;

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
      NEW.refunded_amount AS "refundedAmount", NEW.paid_amount AS "paidAmount") t);
  IF NEW.id_rec IS NOT NULL THEN
    NEW.public_json := left(NEW.public_json, -1) || ',"idRec":' || to_json(NEW.id_rec)::text
      || ',"contrato":' || to_json(COALESCE(NEW.contrato, ''))::text || '}';
  END IF;
  IF NEW.boleto IS NOT NULL THEN
    NEW.public_json := left(NEW.public_json, -1) || ',"boleto":' || NEW.boleto::text || '}';
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
  IF NEW.risk IS NOT NULL THEN
    NEW.public_json := left(NEW.public_json, -1) || ',"risk":' || NEW.risk::text || '}';
  END IF;
  RETURN NEW;
END
$$;
