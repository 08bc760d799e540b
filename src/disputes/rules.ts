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
  // (one still open is told: a later REJEITADA cannot win money already given back, med-notices.ts). It is the
  // dispute's up to what the dispute holds (open: its amount; closed: what it took) less the MED devoluções
  // told before; beyond that, the PSP gave back more than the dispute, and the rest is a refund of its own
  setMedDevolucaoRule({
    tell: `WITH d AS (
             SELECT id, GREATEST(0, LEAST($2::bigint,
                      CASE WHEN closed_at IS NULL THEN amount_cents ELSE COALESCE(lost_cents, amount_cents) END
                        - med_devolution_cents)) AS told
               FROM disputes
              WHERE sale_id = $1 AND kind = 'med'
                AND status IN ('needs_response', 'under_review', 'lost', 'accepted')
              ORDER BY closed_at IS NULL DESC, id DESC LIMIT 1
                FOR UPDATE)
           UPDATE disputes SET med_devolution_cents = med_devolution_cents + d.told FROM d
            WHERE disputes.id = d.id RETURNING d.told`,
  });
}
