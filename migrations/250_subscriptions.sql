-- Plans and subscriptions (decisions.md, "Subscriptions and saved cards"). A subscription bills one period after
-- another; each try at a period's charge is one subscription_charges row, unique by (subscription, period,
-- attempt): the claim two schedulers (or a scheduler restarted after a crash) cannot both hold, taken before any
-- sale exists and bound to the sale in the transaction that stores it.
CREATE TABLE IF NOT EXISTS plans (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE,
  account_id bigint NOT NULL REFERENCES accounts (id),
  name text NOT NULL,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  interval text NOT NULL CHECK (interval IN ('week', 'month', 'year')),
  interval_count int NOT NULL DEFAULT 1 CHECK (interval_count BETWEEN 1 AND 12),
  trial_days int NOT NULL DEFAULT 0 CHECK (trial_days BETWEEN 0 AND 90),
  methods text[] NOT NULL,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS plans_account_idx ON plans (account_id, id DESC);

CREATE TABLE IF NOT EXISTS subscriptions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uuid uuid NOT NULL UNIQUE,
  account_id bigint NOT NULL REFERENCES accounts (id),
  customer_id bigint NOT NULL REFERENCES customers (id),
  plan_id bigint NOT NULL REFERENCES plans (id),
  -- a plan change (PATCH {planId}) waits here for the next period
  next_plan_id bigint REFERENCES plans (id),
  payment_method text NOT NULL CHECK (payment_method IN ('CREDIT_CARD', 'PIX', 'BOLETO')),
  card_id uuid,
  -- a boleto's payer address (customers keep none)
  address jsonb,
  status text NOT NULL CHECK (status IN ('trialing', 'active', 'past_due', 'unpaid', 'canceled')),
  -- period n runs from periodDate(anchor_date, n) to periodDate(anchor_date, n + 1), São Paulo dates
  anchor_date date NOT NULL,
  trial_end date,
  -- the period whose charge is next (or being tried); attempt: the tries made at it so far
  period_index int NOT NULL DEFAULT 0,
  attempt int NOT NULL DEFAULT 0,
  first_failed_at timestamptz,
  -- the last paid period's dates (the trial's while trialing)
  current_period_start date NOT NULL,
  current_period_end date NOT NULL,
  next_charge_at timestamptz,
  cancel_at_period_end boolean NOT NULL DEFAULT false,
  canceled_at timestamptz,
  -- the customer's page /billing/<token>: found by the hash, the token itself sealed for the e-mails' links
  billing_token_hash bytea NOT NULL UNIQUE,
  billing_token_sealed text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS subscriptions_account_idx ON subscriptions (account_id, id DESC);
CREATE INDEX IF NOT EXISTS subscriptions_due_idx ON subscriptions (next_charge_at) WHERE next_charge_at IS NOT NULL;

CREATE TABLE IF NOT EXISTS subscription_charges (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  subscription_id bigint NOT NULL REFERENCES subscriptions (id),
  period_index int NOT NULL,
  attempt int NOT NULL,
  sale_id bigint REFERENCES sales (id),
  outcome text CHECK (outcome IN ('paid', 'failed')),
  claimed_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (subscription_id, period_index, attempt)
);
CREATE INDEX IF NOT EXISTS subscription_charges_open_idx ON subscription_charges (sale_id) WHERE outcome IS NULL;

-- subscription.* and invoice.* facts in the notification outbox
ALTER TABLE notification_events DROP CONSTRAINT IF EXISTS notification_events_subject_type_check;
ALTER TABLE notification_events
  ADD CONSTRAINT notification_events_subject_type_check
  CHECK (subject_type IN ('sale', 'withdrawal', 'cart', 'webhook', 'dispute', 'anticipation', 'subscription'));

ALTER TABLE sales ADD COLUMN IF NOT EXISTS subscription_id uuid;
CREATE INDEX IF NOT EXISTS sales_subscription_idx ON sales (subscription_id, id DESC)
  WHERE subscription_id IS NOT NULL;

-- The Sale object appends `subscriptionId` when a subscription made the sale; otherwise as in
-- 245_sale_json_risk_and_split.sql.
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
  IF NEW.split IS NOT NULL THEN
    NEW.public_json := left(NEW.public_json, -1) || ',"split":' || NEW.split::text || '}';
  END IF;
  IF NEW.subscription_id IS NOT NULL THEN
    NEW.public_json := left(NEW.public_json, -1) || ',"subscriptionId":' || to_json(NEW.subscription_id)::text || '}';
  END IF;
  RETURN NEW;
END
$$;
