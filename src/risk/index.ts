// The risk module's front door: the rules risk operators write, kept in memory, and the decisions they take.
export { listRiskRules } from './data.js';
export { auditRiskDecision, expireRiskReview, RISK_RULES_ACTOR, RiskRuleActions } from './decisions.js';
export { RiskRules } from './risk-rules.js';
export {
  ALLOW,
  customerFacts,
  PAYMENT_METHODS,
  type PaymentMethod,
  type RiskDecision,
  type RiskFacts,
  type RiskRuleInput,
  type RiskRuleView,
} from './rules.js';
export { RiskRule, RiskRuleBody, RiskRuleList, SaleRisk } from './schemas.js';
