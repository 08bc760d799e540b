-- How a discrepancy was resolved: by the gateway (a later listing, a duplicate payment returned to its payer) or
-- by an operator's note (`gateway reconcile --resolve ID --note …`).
ALTER TABLE reconciliation_discrepancies ADD COLUMN IF NOT EXISTS resolution text;
