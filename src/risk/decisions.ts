import { type OperatorActor, recordOperatorAudit } from '../operators/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { notFound } from '../platform/errors/app-error.js';
import { closeReview, lockOpenReview, openReviewOfSale } from '../reviews/index.js';
import { deleteRiskRule, insertRiskRule } from './data.js';
import type { RiskRules } from './risk-rules.js';
import { normalizeRule, type RiskDecision, type RiskRuleInput, type RiskRuleView } from './rules.js';

/** The rules themselves, named as the actor of the decisions they take in the operator audit log. */
export const RISK_RULES_ACTOR: OperatorActor = { id: null, email: 'risk-rules', ip: null, userAgent: null };

/**
 * A rule's decision on a sale (block or review), in the operator audit log, in the transaction that records
 * it on the sale. An `allow` is the absence of a decision and is not logged.
 */
export async function auditRiskDecision(
  tx: Queryable,
  accountId: number,
  saleId: number,
  decision: RiskDecision,
): Promise<void> {
  if (decision.decision === 'allow') return;
  await recordOperatorAudit(tx, RISK_RULES_ACTOR, {
    action: `risk.${decision.decision}`,
    accountId,
    target: `sale:${saleId}`,
    before: null,
    after: { rule: decision.rule, ruleName: decision.ruleName },
  });
}

/** A risk operator's changes to the rules: each with its audit entry, in force in this process before it answers. */
export class RiskRuleActions {
  constructor(
    private readonly db: Db,
    private readonly rules: RiskRules,
  ) {}

  async create(input: RiskRuleInput, actor: OperatorActor): Promise<RiskRuleView> {
    const rule = normalizeRule(input);
    const created = await this.db.tx(async (tx) => {
      const row = await insertRiskRule(tx, rule, actor.email);
      await recordOperatorAudit(tx, actor, {
        action: 'risk_rule.created',
        target: `risk_rule:${row.id}`,
        before: null,
        after: row,
      });
      return row;
    });
    await this.rules.reload();
    return created;
  }

  async delete(id: number, actor: OperatorActor): Promise<void> {
    await this.db.tx(async (tx) => {
      const row = await deleteRiskRule(tx, id);
      if (!row) throw notFound('Risk rule not found');
      await recordOperatorAudit(tx, actor, {
        action: 'risk_rule.deleted',
        target: `risk_rule:${id}`,
        before: row,
        after: null,
      });
    });
    await this.rules.reload();
  }
}

/**
 * A held card sale's review not decided within RISK_REVIEW_HOURS, in the transaction that voids it: the review
 * closed as rejected by the rules themselves, in the operator audit log.
 */
export async function expireRiskReview(
  tx: Queryable,
  hold: { saleId: number; accountId: number },
): Promise<void> {
  const id = await openReviewOfSale(tx, hold.saleId);
  if (id !== null) {
    await lockOpenReview(tx, id);
    await closeReview(
      tx,
      id,
      'rejected',
      RISK_RULES_ACTOR.email,
      'RISK_REVIEW_HOURS passed without a decision',
    );
  }
  await recordOperatorAudit(tx, RISK_RULES_ACTOR, {
    action: 'review.expired',
    accountId: hold.accountId,
    target: id === null ? `sale:${hold.saleId}` : `review:${id}`,
    before: { status: 'open' },
    after: { status: 'rejected', sale: hold.saleId, authorization: 'voided' },
  });
}
