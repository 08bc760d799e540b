import { setOpenDisputeRule } from '../sales/index.js';

/**
 * The disputes module's rule on a sale's changes: a sale with an open dispute (needs_response, under_review)
 * leaves MED or CHARGEBACK only through the dispute's outcome (Disputes.close), since the dispute's own entry
 * holds its amount; a processor's status report moving it is refused (409).
 */
export function installDisputeRules(): void {
  setOpenDisputeRule(
    `EXISTS (SELECT 1 FROM disputes od WHERE od.sale_id = s.id AND od.status IN ('needs_response', 'under_review'))`,
  );
}
