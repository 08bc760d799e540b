-- The Sale object's pixKey is the PIX sale's code alone (the contract: "PIX payments only"): a boleto's Pix is in
-- its boleto.pixCopyPaste, and its pixKey is null; otherwise as in 250_subscriptions.sql. The boletos stored before
-- are written again so that their public_json says so (the trigger rebuilds it; no other column changes).
CREATE OR REPLACE FUNCTION sales_public_json() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.public_json := (SELECT row_to_json(t)::text FROM (SELECT NEW.id AS "id", NEW.uuid AS "uuid",
      NEW.status AS "status", NEW.amount AS "amount", NEW.net_amount AS "netAmount",
      NEW.system_fee AS "systemFee", NEW.reserve_amount AS "reserveAmount", NEW.payment_method AS "paymentMethod",
      to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "date",
      to_char(NEW.completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "completedAt",
      NEW.customer AS "customer", NEW.items AS "items", CASE WHEN NEW.payment_method = 'BOLETO' THEN NULL ELSE NEW.pix_key END AS "pixKey",
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
  IF NEW.split IS NOT NULL THEN
    NEW.public_json := left(NEW.public_json, -1) || ',"split":' || NEW.split::text || '}';
  END IF;
  IF NEW.subscription_id IS NOT NULL THEN
    NEW.public_json := left(NEW.public_json, -1) || ',"subscriptionId":' || to_json(NEW.subscription_id)::text || '}';
  END IF;
  RETURN NEW;
END
$$;

UPDATE sales SET pix_key = pix_key WHERE payment_method = 'BOLETO' AND pix_key IS NOT NULL;
