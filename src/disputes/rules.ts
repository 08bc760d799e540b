import { setMedDevolucaoRule } from '../pix/index.js';
import { setOpenDisputeRule } from '../sales/index.js';

/**
 * The disputes module's rule on a sale's changes: a sale with an open dispute (needs_response, under_review)
 * leaves MED or CHARGEBACK only through the dispute's outcome (Disputes.close), since the dispute's own entry
 * holds its amount; a processor's status report moving it is refused (409). A MED's devolução of a sale it
 * disputes is the dispute's, never a refund of its own.
 */
export function installDisputeRules(): void {
  setOpenDisputeRule(
    `EXISTS (SELECT 1 FROM disputes od WHERE od.sale_id = s.id AND od.status IN ('needs_response', 'under_review'))`,
  );
  // a MED's devolução (natureza MED_*) of a sale with a MED dispute open, lost or accepted is that dispute's end:
  // the dispute's outcome (Disputes.close) moves its money, once; a refund of it as well would take it twice
  // (one still open is told: a later REJEITADA cannot win money already given back, med-notices.ts)
  setMedDevolucaoRule({
    theirs: `EXISTS (SELECT 1 FROM disputes md WHERE md.sale_id = $1 AND md.kind = 'med'
                       AND md.status IN ('needs_response', 'under_review', 'lost', 'accepted'))`,
    tell: `UPDATE disputes SET med_devolution_cents = med_devolution_cents + $2::bigint
            WHERE sale_id = $1 AND kind = 'med' AND status IN ('needs_response', 'under_review')`,
  });
}
