import {
  assignFeePlan,
  createFeePlan,
  type FeePlanInput,
  type FeePlanView,
  updateFeePlan,
} from '../accounts/index.js';
import { type OperatorActor, recordOperatorAudit } from '../operators/index.js';
import type { Db } from '../platform/db/db.js';

/** A finance operator's changes to fee plans: each change and its audit entry (before, after) commit together. */
export class FeePlanActions {
  constructor(private readonly db: Db) {}

  create(input: FeePlanInput, actor: OperatorActor): Promise<FeePlanView> {
    return this.db.tx(async (tx) => {
      const plan = await createFeePlan(tx, input);
      await recordOperatorAudit(tx, actor, {
        action: 'fee_plan.created',
        target: `fee_plan:${plan.id}`,
        before: null,
        after: plan,
      });
      return plan;
    });
  }

  update(id: number, input: FeePlanInput, actor: OperatorActor): Promise<FeePlanView> {
    return this.db.tx(async (tx) => {
      const { before, after } = await updateFeePlan(tx, id, input);
      await recordOperatorAudit(tx, actor, {
        action: 'fee_plan.updated',
        target: `fee_plan:${id}`,
        before,
        after,
      });
      return after;
    });
  }

  assign(accountId: number, planId: number, actor: OperatorActor): Promise<FeePlanView> {
    return this.db.tx(async (tx) => {
      const { before, after } = await assignFeePlan(tx, accountId, planId);
      await recordOperatorAudit(tx, actor, {
        action: 'account.fee-plan',
        accountId,
        target: `account:${accountId}`,
        before: { feePlan: before },
        after: { feePlan: after },
      });
      return after;
    });
  }
}
