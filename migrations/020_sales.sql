-- Recurring PIX mandates (PIX_AUTOMATICO). id_rec is the public recurrence id; every cycle is its own sale.
CREATE TABLE recurrences (
  id bigserial PRIMARY KEY,
  id_rec text NOT NULL UNIQUE,
  account_id bigint NOT NULL REFERENCES accounts (id),
  contrato text NOT NULL,
  journey smallint NOT NULL CHECK (journey BETWEEN 1 AND 4),
  amount bigint NOT NULL CHECK (amount > 0),
  data_inicial date NOT NULL,
  customer jsonb NOT NULL,
  postback_url text,
  cycles integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX recurrences_account_idx ON recurrences (account_id);

-- Carts: a buyer's data and items before a sale exists. OPEN → ABANDONED → RECOVERED, or OPEN → CONVERTED.
CREATE TABLE carts (
  id bigserial PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE,
  account_id bigint NOT NULL REFERENCES accounts (id),
  status text NOT NULL CHECK (status IN ('OPEN', 'ABANDONED', 'RECOVERED', 'CONVERTED')),
  customer jsonb NOT NULL,
  items jsonb NOT NULL,
  amount bigint NOT NULL CHECK (amount >= 0),
  sale_id bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  abandoned_at timestamptz,
  closed_at timestamptz
);
CREATE INDEX carts_account_idx ON carts (account_id);

-- Item ids are integers of their own (spec: items[].id), unique across sales.
CREATE SEQUENCE sale_item_id_seq;

-- Sales are created and moved by payment processors. Customer and items live in the row so a lookup is one
-- indexed read. They, and shipping, are json (not jsonb): the text is kept as written, in the key order of
-- the API, so the lookup can emit them verbatim and shipping keeps the merchant's key order.
-- id_rec and contrato are copied from the mandate (immutable) for the same reason. Timestamps are kept at
-- millisecond precision, the precision of the ISO 8601 strings the API shows.
CREATE TABLE sales (
  id bigserial PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE,
  account_id bigint NOT NULL REFERENCES accounts (id),
  status text NOT NULL CHECK (status IN
    ('PENDENTE', 'EM_PROCESSAMENTO', 'PAGO', 'CANCELADO', 'RECUSADO', 'ESTORNADO', 'FALHA', 'CHARGEBACK', 'MED')),
  amount bigint NOT NULL CHECK (amount > 0),
  system_fee bigint NOT NULL CHECK (system_fee >= 0),
  net_amount bigint NOT NULL,
  reserve_amount bigint NOT NULL CHECK (reserve_amount >= 0),
  -- true while the reserve of a paid sale sits in blocked; false once released or taken back
  reserve_held boolean NOT NULL DEFAULT false,
  payment_method text NOT NULL CHECK (payment_method IN
    ('PIX', 'CREDIT_CARD', 'DEBIT_CARD', 'BOLETO', 'TRANSFER', 'PIX_AUTOMATICO')),
  customer json NOT NULL,
  items json NOT NULL,
  shipping json,
  pix_key text,
  card_last_four text,
  card_brand text,
  boleto_code text,
  installments integer,
  processor text NOT NULL,
  external_transaction_id text NOT NULL,
  postback_url text,
  cart_id bigint REFERENCES carts (id),
  recurrence_id bigint REFERENCES recurrences (id),
  id_rec text,
  contrato text,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
  updated_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  -- The spec's Sale object as sent by GET /api/transactions/{id}, kept current by the trigger below.
  public_json text NOT NULL DEFAULT '',
  CHECK (net_amount = amount - system_fee),
  CHECK (net_amount >= 0),
  CHECK (reserve_amount <= net_amount)
);
CREATE UNIQUE INDEX sales_processor_ref_idx ON sales (processor, external_transaction_id);
CREATE INDEX sales_account_idx ON sales (account_id, created_at DESC);
CREATE INDEX sales_recurrence_idx ON sales (recurrence_id) WHERE recurrence_id IS NOT NULL;

-- The Sale object (spec table order, compact JSON, idRec/contrato appended on recurring sales) is rebuilt on
-- every write, so the lookup is one indexed read of one text column: no JSON assembly per request.
CREATE FUNCTION sales_public_json() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.public_json := (SELECT row_to_json(t)::text FROM (SELECT NEW.id AS "id", NEW.uuid AS "uuid",
      NEW.status AS "status", NEW.amount AS "amount", NEW.net_amount AS "netAmount",
      NEW.system_fee AS "systemFee", NEW.reserve_amount AS "reserveAmount", NEW.payment_method AS "paymentMethod",
      to_char(NEW.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "date",
      to_char(NEW.completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "completedAt",
      NEW.customer AS "customer", NEW.items AS "items", NEW.pix_key AS "pixKey",
      NEW.card_last_four AS "cardLastFour", NEW.card_brand AS "cardBrand", NEW.boleto_code AS "boletoCode",
      NEW.external_transaction_id AS "externalTransactionId", NEW.installments AS "installments",
      NEW.shipping AS "shipping") t);
  IF NEW.id_rec IS NOT NULL THEN
    NEW.public_json := left(NEW.public_json, -1) || ',"idRec":' || to_json(NEW.id_rec)::text
      || ',"contrato":' || to_json(COALESCE(NEW.contrato, ''))::text || '}';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER sales_public_json BEFORE INSERT OR UPDATE ON sales
  FOR EACH ROW EXECUTE FUNCTION sales_public_json();
