-- A sale is refunded in one or more refunds, each up to what is left of what the payer paid. A refund in
-- progress holds its share of the sale's net (refund_pending_net: out of `available`, less what the sale's held
-- reserve covers) until the processor answers; a refund made adds to refunded_amount and refunded_net, and the
-- one that reaches what the payer paid makes the sale ESTORNADO.
CREATE TABLE IF NOT EXISTS sale_refunds (
  id bigserial PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
  sale_id bigint NOT NULL REFERENCES sales (id),
  account_id bigint NOT NULL REFERENCES accounts (id),
  amount bigint NOT NULL CHECK (amount > 0),
  -- the share of the sale's net the refund takes from the merchant (the last refund takes what is left)
  net bigint NOT NULL CHECK (net >= 0),
  status text NOT NULL CHECK (status IN ('PENDING', 'DONE', 'FAILED')),
  idempotency_key text,
  request_hash text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((idempotency_key IS NULL) = (request_hash IS NULL))
);
CREATE INDEX IF NOT EXISTS sale_refunds_sale_idx ON sale_refunds (sale_id);
CREATE UNIQUE INDEX IF NOT EXISTS sale_refunds_key_idx ON sale_refunds (account_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS sale_refunds_pending_idx ON sale_refunds (updated_at) WHERE status = 'PENDING';

ALTER TABLE sales ADD COLUMN IF NOT EXISTS refunded_amount bigint NOT NULL DEFAULT 0;
ALTER TABLE sales ADD COLUMN IF NOT EXISTS refunded_net bigint NOT NULL DEFAULT 0;
ALTER TABLE sales ADD COLUMN IF NOT EXISTS refund_pending_net bigint NOT NULL DEFAULT 0;

-- which refund a devolução attempt carries (every requested attempt has one)
ALTER TABLE bcb_devolucoes ADD COLUMN IF NOT EXISTS refund_id bigint REFERENCES sale_refunds (id);

-- sales refunded before: in full
UPDATE sales SET refunded_amount = COALESCE(paid_amount, amount), refunded_net = net_amount
 WHERE status = 'ESTORNADO' AND refunded_amount = 0;

-- a full refund in progress (its whole net held) becomes a pending refund of what the payer paid
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'sales' AND column_name = 'refund_held') THEN
    WITH held AS (
      INSERT INTO sale_refunds (sale_id, account_id, amount, net, status)
      SELECT id, account_id, COALESCE(paid_amount, amount), net_amount, 'PENDING' FROM sales WHERE refund_held
      RETURNING id, sale_id, net)
    UPDATE sales s SET refund_pending_net = held.net FROM held WHERE s.id = held.sale_id;
    UPDATE bcb_devolucoes d SET refund_id = r.id FROM sale_refunds r
     WHERE d.requested AND d.refund_id IS NULL AND r.sale_id = d.sale_id;
    ALTER TABLE sales DROP COLUMN refund_held;
  END IF;
END
$$;

-- the Sale object gains refundedAmount (cents refunded so far), after expiresAt; as in 170_checkout.sql otherwise
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
  RETURN NEW;
END
$$;
-- rebuilt for every stored sale by touching it (the trigger runs BEFORE UPDATE)
UPDATE sales SET public_json = public_json;
