-- Every paid sale records what the payer paid (paid_amount), whatever the path that paid it: the status move to
-- PAGO sets it when nothing set it before (a boleto's Pix or barcode with fine, interest or discount sets it
-- first). Sales paid before: what they were paid is their amount (only boletos set another one).
UPDATE sales SET paid_amount = amount
 WHERE paid_amount IS NULL AND status IN ('PAGO', 'ESTORNADO', 'CHARGEBACK', 'MED');

-- A refund is an object of the API (the refund route's answer, each sale.refunded body): when it ended (made or
-- not made) and, when the gateway knows, why it was made.
ALTER TABLE sale_refunds ADD COLUMN IF NOT EXISTS reason text;
ALTER TABLE sale_refunds ADD COLUMN IF NOT EXISTS completed_at timestamptz;
UPDATE sale_refunds SET completed_at = updated_at WHERE status <> 'PENDING' AND completed_at IS NULL;

-- the Sale object carries paidAmount on every sale (null until paid), after refundedAmount; as in
-- 190_card_sales.sql otherwise (a boleto's object appends only its boleto now)
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
  RETURN NEW;
END
$$;

UPDATE sales SET public_json = public_json;
