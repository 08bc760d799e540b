import { useState } from 'preact/hooks';
import { ApiError } from '../ui/api-error';
import { type AccountDetail, api, type FeePlan } from './api';

/** Whether an account has a fee plan of its own (its detail's fees name one). */
export const hasOwnPlan = (detail: AccountDetail): boolean =>
  detail.fees.feePlanId !== undefined && detail.fees.feePlanId !== 'none';

/**
 * The fee plan an approval goes with, chosen in its dialog (decisions.md, "Operators, amended": approving needs
 * a plan, the account's or the platform's default; without either the console asks for one). Used wherever an
 * account is approved: its page, and the review queue's onboarding reviews.
 */
export function usePlanChoice() {
  const [plans, setPlans] = useState<FeePlan[] | null>(null);
  const [defaultPlan, setDefaultPlan] = useState<FeePlan | null>(null);
  const [planId, setPlanId] = useState('');
  const [required, setRequired] = useState(false);
  const [accountHasPlan, setAccountHasPlan] = useState<boolean | null>(null);
  return {
    plans,
    defaultPlan,
    planId,
    setPlanId,
    required,
    accountHasPlan,
    /**
     * "Confirmar" waits for the plans to be known when the account has none of its own, then for a plan only
     * when there is none to fall back on.
     */
    ready:
      accountHasPlan === true || (accountHasPlan === false && plans !== null && (!required || planId !== '')),
    /** The dialog opens: whether the account has its own plan, and the plans to choose from if not. */
    open(hasPlan: boolean) {
      setPlanId('');
      setAccountHasPlan(hasPlan);
      if (hasPlan || plans !== null) return;
      api.feePlans().then(
        (p) => {
          setPlans(p.data);
          // with no platform default, the approval needs a plan chosen here (the server says the same)
          const fallback = p.data.find((plan) => plan.id === p.defaultPlanId) ?? null;
          setDefaultPlan(fallback);
          if (!fallback) setRequired(true);
        },
        () => setPlans([]),
      );
    },
    /** Approves with the chosen plan assigned first; a refusal for want of a plan makes the choice required. */
    async approve(accountId: number, approve: () => Promise<unknown>): Promise<FeePlan | null> {
      if (planId) await api.assignFeePlan(accountId, Number(planId));
      try {
        await approve();
      } catch (err) {
        if (err instanceof ApiError && err.code === 'FEE_PLAN_REQUIRED') setRequired(true);
        throw err;
      }
      return plans?.find((p) => String(p.id) === planId) ?? null;
    },
  };
}

export type PlanChoice = ReturnType<typeof usePlanChoice>;

/** The dialog's plan fields, for an account without a plan of its own. */
export function PlanChoiceFields({ choice, id }: { choice: PlanChoice; id: string }) {
  if (choice.accountHasPlan !== false) return null;
  const { defaultPlan, required, plans } = choice;
  if (plans === null) return <p class="muted">Carregando os planos de tarifas…</p>;
  return (
    <>
      <p class="muted">
        {defaultPlan && !required
          ? `A conta não tem plano de tarifas próprio: sem escolha, vale o plano padrão da plataforma (${defaultPlan.name}).`
          : 'A conta não tem plano de tarifas e a plataforma não tem plano padrão: escolha um para aprovar.'}
      </p>
      <label for={id}>Plano de tarifas</label>
      <select id={id} value={choice.planId} onChange={(e) => choice.setPlanId(e.currentTarget.value)}>
        <option value="">
          {defaultPlan && !required ? `Plano padrão da plataforma (${defaultPlan.name})` : 'Escolha um plano'}
        </option>
        {(plans ?? []).map((p) => (
          <option key={p.id} value={String(p.id)}>
            {p.name}
          </option>
        ))}
      </select>
      {plans?.length === 0 && <p class="muted">Nenhum plano criado ainda: crie um em Tarifas.</p>}
    </>
  );
}
