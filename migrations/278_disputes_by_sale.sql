-- A sale's disputes, listed on its page (GET /api/disputes?saleId=): found by the sale, not by reading the
-- account's every dispute.
CREATE INDEX IF NOT EXISTS disputes_sale_idx ON disputes (sale_uuid, id DESC);
