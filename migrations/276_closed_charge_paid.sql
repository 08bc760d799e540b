-- A payment of a charge no longer payable (cancelled, expired, refused): a Pix of its cob or cobv, or a CNAB
-- liquidação of its boleto. It credits nothing and the payer is owed it back, so it is kept as a discrepancy.
ALTER TABLE reconciliation_discrepancies DROP CONSTRAINT IF EXISTS reconciliation_discrepancies_kind_check;
ALTER TABLE reconciliation_discrepancies ADD CONSTRAINT reconciliation_discrepancies_kind_check
  CHECK (kind IN ('unknown_charge', 'amount_mismatch', 'missing_at_psp', 'duplicate_payment', 'closed_charge_paid'));
