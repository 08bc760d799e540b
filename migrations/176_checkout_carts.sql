-- A payer who gives their data on a payment link's or a checkout session's page opens a cart; left unpaid for
-- CART_ABANDON_AFTER_MINUTES it is abandoned (cart.abandoned), and paid later it is recovered (cart.recovered).
ALTER TABLE carts ADD COLUMN IF NOT EXISTS payment_link_id uuid;
ALTER TABLE carts ADD COLUMN IF NOT EXISTS checkout_session_id uuid;
-- the page the payer can come back to (the recovery e-mail's link); set only on checkout carts
ALTER TABLE carts ADD COLUMN IF NOT EXISTS recovery_url text;
CREATE INDEX IF NOT EXISTS carts_open_checkout_idx ON carts (created_at) WHERE status = 'OPEN' AND recovery_url IS NOT NULL;
CREATE INDEX IF NOT EXISTS carts_session_idx ON carts (checkout_session_id) WHERE checkout_session_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS carts_link_idx ON carts (payment_link_id) WHERE payment_link_id IS NOT NULL;
-- the account's choice: the payer of an abandoned checkout cart gets one recovery e-mail with the page's link
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS cart_recovery_email boolean NOT NULL DEFAULT false;
