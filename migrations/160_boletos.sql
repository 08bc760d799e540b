-- Boletos híbridos (docs/decisions.md, "Boleto"). The boletos module owns `boletos` and `boleto_numbers`; the
-- sale gains what the Sale object shows of it: `paid_amount` (what the payer paid, fine and interest included or
-- the discount taken off; null until paid) and `boleto` (the Sale object's "boleto", written once at issue).
ALTER TABLE sales ADD COLUMN IF NOT EXISTS paid_amount bigint;
ALTER TABLE sales ADD COLUMN IF NOT EXISTS boleto json;
-- fee and net are computed on what was paid
ALTER TABLE sales DROP CONSTRAINT IF EXISTS sales_check;
ALTER TABLE sales DROP CONSTRAINT IF EXISTS sales_net_is_paid_less_fee;
ALTER TABLE sales ADD CONSTRAINT sales_net_is_paid_less_fee
  CHECK (net_amount = coalesce(paid_amount, amount) - system_fee);

-- the last nosso número given per beneficiary (bank, agency, account, wallet): unique per beneficiary
CREATE TABLE IF NOT EXISTS boleto_numbers (
  beneficiary text PRIMARY KEY,
  last bigint NOT NULL
);

CREATE TABLE IF NOT EXISTS boletos (
  sale_id bigint PRIMARY KEY,
  account_id bigint NOT NULL,
  beneficiary text NOT NULL,
  nosso_numero text NOT NULL,
  barcode char(44) NOT NULL,
  digitable_line char(47) NOT NULL,
  amount bigint NOT NULL CHECK (amount > 0),
  due_date date NOT NULL,
  days_after_due int NOT NULL CHECK (days_after_due BETWEEN 0 AND 60),
  fine_bp int NOT NULL DEFAULT 0,
  monthly_interest_bp int NOT NULL DEFAULT 0,
  discount_cents bigint,
  discount_until date,
  txid text NOT NULL UNIQUE,
  pix_copy_paste text NOT NULL,
  -- the payer's link to the PDF: sha256 of the token (the token itself is in the sale's pdfUrl)
  pdf_token_hash bytea NOT NULL UNIQUE,
  payer json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (beneficiary, nosso_numero)
);
CREATE INDEX IF NOT EXISTS boletos_created_on ON boletos ((created_at AT TIME ZONE 'America/Sao_Paulo'));

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
  RETURN NEW;
END
$$;

-- the liquidação of a CNAB return that credited the boleto (null: unpaid, or paid by Pix)
ALTER TABLE boletos ADD COLUMN IF NOT EXISTS cnab_paid_on date;
ALTER TABLE boletos ADD COLUMN IF NOT EXISTS cnab_paid_amount bigint;

-- a boleto paid twice (Pix and barcode, or two liquidações): recorded, never credited twice
ALTER TABLE reconciliation_discrepancies DROP CONSTRAINT IF EXISTS reconciliation_discrepancies_kind_check;
ALTER TABLE reconciliation_discrepancies ADD CONSTRAINT reconciliation_discrepancies_kind_check
  CHECK (kind IN ('unknown_charge', 'amount_mismatch', 'missing_at_psp', 'duplicate_payment'));
