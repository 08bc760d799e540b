import { installBoletoRules } from './boletos/index.js';
import { installCartRules } from './checkout/index.js';
import { installDisputeRules } from './disputes/index.js';
import { installPixRules } from './pix/index.js';
import { installReconciliationRules } from './reconciliation/index.js';

/**
 * The rules other modules put on a sale's changes, installed by every process that may settle a sale or a refund
 * (`serve`, `worker`, and the CLI commands that say they do: `settlesSales`).
 */
export function installSaleRules(): void {
  installBoletoRules(); // a BOLETO sale's Pix is due its fine, interest or discount (boletos/paid-amount.ts)
  installPixRules(); // a refund with a devolução under way is never ended as not made (pix/devolucoes.ts)
  installCartRules(); // a checkout payer's sale opens and closes their cart (checkout/carts/)
  installDisputeRules(); // a sale with an open dispute leaves MED or CHARGEBACK by its outcome only (disputes/rules.ts)
  installReconciliationRules(); // a payment of a charge closed unpaid is owed back (reconciliation/owed-back.ts)
}
