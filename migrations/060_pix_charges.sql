-- PIX charges opened by POST /api/transactions expire: the gateway watches expiry itself (the standard API Pix
-- has no expiry callback), so each charge keeps its deadline and the watcher reads pending ones by it.
ALTER TABLE sales ADD COLUMN charge_expires_at timestamptz;
CREATE INDEX sales_pending_charge_expiry_idx ON sales (charge_expires_at)
  WHERE status = 'PENDENTE' AND charge_expires_at IS NOT NULL;

-- Idempotency-Key of POST /api/transactions, per account, kept 24 h like the cashout keys. The row is inserted
-- in the transaction that creates the sale: a concurrent request with the same key waits on it, then replays.
CREATE TABLE sale_idempotency (
  account_id bigint NOT NULL REFERENCES accounts (id),
  key text NOT NULL,
  request_hash text NOT NULL,
  sale_id bigint REFERENCES sales (id), -- set in the same transaction, once the sale exists
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX sale_idempotency_expires_idx ON sale_idempotency (expires_at);
