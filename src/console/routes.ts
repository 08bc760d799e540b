import type { Anticipations } from '../anticipations/index.js';
import type { Http } from '../platform/http/types.js';
import type { Reconciliation } from '../reconciliation/index.js';
import type { RiskRules } from '../risk/index.js';
import { type ConsoleRouteDeps, consoleAccountRoutes } from './accounts.routes.js';
import { consoleAnticipationRoutes } from './anticipations.routes.js';
import { consoleDeliveryRoutes } from './deliveries.routes.js';
import { consoleFeePlanRoutes } from './fee-plans.routes.js';
import { consoleQueueRoutes } from './queues.routes.js';
import { consoleReconciliationRoutes } from './reconciliation.routes.js';
import { consoleReportRoutes } from './reports.routes.js';
import { consoleRiskRuleRoutes } from './risk-rules.routes.js';

/** Every console route but the operators' own (sign-in, operators, audit: the operators module's). */
export async function consoleRoutes(
  app: Http,
  deps: ConsoleRouteDeps & {
    anticipations: Anticipations;
    riskRules: RiskRules;
    reconciliation: Reconciliation;
  },
): Promise<void> {
  await consoleAccountRoutes(app, deps);
  await consoleQueueRoutes(app, deps);
  await consoleReportRoutes(app, deps);
  await consoleDeliveryRoutes(app, deps);
  await consoleFeePlanRoutes(app, deps);
  await consoleAnticipationRoutes(app, deps);
  await consoleRiskRuleRoutes(app, deps);
  await consoleReconciliationRoutes(app, deps);
}
