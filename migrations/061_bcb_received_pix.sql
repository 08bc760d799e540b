-- Every Pix the bcb processor's PSP reported and the gateway confirmed by reading it back (GET /pix/{e2eid}),
-- once per end-to-end id: a repeated webhook finds its row and changes nothing. A Pix that did not credit its
-- sale (unknown txid, an amount differing from the charge, a charge no longer payable) is kept with the reason.
CREATE TABLE bcb_received_pix (
  e2eid text PRIMARY KEY,
  txid text,
  amount bigint NOT NULL,
  sale_id bigint REFERENCES sales (id),
  credited boolean NOT NULL,
  reason text,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX bcb_received_pix_sale_idx ON bcb_received_pix (sale_id) WHERE credited;
