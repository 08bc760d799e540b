import type { Queryable } from '../platform/db/db.js';
import type { RiskAction, RiskConditions, RiskRuleInput, RiskRuleView } from './rules.js';

interface RiskRuleRow {
  id: number;
  name: string;
  conditions: RiskConditions;
  action: RiskAction;
  created_by: string;
  created_at: Date;
}

const view = (r: RiskRuleRow): RiskRuleView => ({
  id: Number(r.id),
  name: r.name,
  when: r.conditions,
  action: r.action,
  createdBy: r.created_by,
  createdAt: r.created_at.toISOString(),
});

/** Every process keeps the rules in memory; a change is announced here, in the changing transaction. */
export const RISK_RULES_CHANNEL = 'risk_rules';

export async function listRiskRules(q: Queryable): Promise<RiskRuleView[]> {
  const rows = await q.query<RiskRuleRow>('SELECT * FROM risk_rules ORDER BY id');
  return rows.map(view);
}

export async function insertRiskRule(tx: Queryable, rule: RiskRuleInput, by: string): Promise<RiskRuleView> {
  const [row] = await tx.query<RiskRuleRow>(
    `INSERT INTO risk_rules (name, conditions, action, created_by) VALUES ($1, $2::jsonb, $3, $4) RETURNING *`,
    [rule.name, JSON.stringify(rule.when), rule.action, by],
  );
  await tx.query(`SELECT pg_notify('${RISK_RULES_CHANNEL}', '')`);
  return view(row!);
}

/** The rule deleted (null when there is none of that id). */
export async function deleteRiskRule(tx: Queryable, id: number): Promise<RiskRuleView | null> {
  const [row] = await tx.query<RiskRuleRow>('DELETE FROM risk_rules WHERE id = $1 RETURNING *', [id]);
  if (!row) return null;
  await tx.query(`SELECT pg_notify('${RISK_RULES_CHANNEL}', '')`);
  return view(row);
}
