import { useEffect, useState } from 'preact/hooks';
import { centsOf, money } from '../../ui/format';
import { Card, ErrorText, Table, useAttempt } from '../../ui/kit';
import { api, type FeePlan, reaches } from '../api';
import { Decision } from '../Decision';

/** A plan's percent as the API gives it ("3.19"), written as people read it ("3,19 %"). */
export const pct = (text: string) => `${text.replace('.', ',')} %`;
/** "2,99" → "2.99" (the API's decimal strings). */
const percentOf = (typed: string) => typed.trim().replace(',', '.');

const EMPTY = {
  name: '',
  pixPercent: '0,99',
  pixFixed: '0,00',
  boletoFixed: '2,49',
  credit1: '3,49',
  credit2to6: '4,29',
  credit7to12: '4,99',
  debitPercent: '1,99',
  anticipation: '2,99',
  cashoutFixed: '0,00',
};

/** A plan's values as the form shows them ("3.19" → "3,19", 249 cents → "2,49"). */
function formOf(p: FeePlan): typeof EMPTY {
  const comma = (text: string) => text.replace('.', ',');
  const reais = (cents: number) => (cents / 100).toFixed(2).replace('.', ',');
  return {
    name: p.name,
    pixPercent: comma(p.pixPercent),
    pixFixed: reais(p.pixFixedCents),
    boletoFixed: reais(p.boletoFixedCents),
    credit1: comma(p.creditPercent['1']),
    credit2to6: comma(p.creditPercent['2-6']),
    credit7to12: comma(p.creditPercent['7-12']),
    debitPercent: comma(p.debitPercent),
    anticipation: comma(p.anticipationMonthlyPercent),
    cashoutFixed: reais(p.cashoutFixedCents),
  };
}

/** A new plan, or (given `plan`) a change of one: its sales keep the fees they were made with. */
function PlanForm({ plan, onMade, onClose }: { plan?: FeePlan; onMade: () => void; onClose?: () => void }) {
  const [form, setForm] = useState(plan ? formOf(plan) : EMPTY);
  // each field's own check, before anything is sent: the browser names the field and says what it takes
  const field = (key: keyof typeof EMPTY, label: string) => {
    const kind = key === 'name' ? null : /\(%\)$/.test(label) ? 'percent' : 'reais';
    return (
      <div>
        <label for={`plan-${key}`}>{label}</label>
        <input
          id={`plan-${key}`}
          required
          inputMode={kind ? 'decimal' : undefined}
          pattern={
            kind === 'percent'
              ? '(100([,.]0{1,4})?|[0-9]{1,2}([,.][0-9]{1,4})?)'
              : kind === 'reais'
                ? '[0-9]{1,7}([,.][0-9]{1,2})?'
                : undefined
          }
          title={
            kind === 'percent'
              ? 'Uma porcentagem de 0 a 100, como 3,99'
              : kind === 'reais'
                ? 'Um valor em reais, como 2,49'
                : undefined
          }
          value={form[key]}
          onInput={(e) => setForm({ ...form, [key]: e.currentTarget.value })}
        />
      </div>
    );
  };
  const body = () => ({
    name: form.name.trim(),
    pixPercent: percentOf(form.pixPercent),
    pixFixedCents: centsOf(form.pixFixed) ?? -1,
    boletoFixedCents: centsOf(form.boletoFixed) ?? -1,
    creditPercent: {
      '1': percentOf(form.credit1),
      '2-6': percentOf(form.credit2to6),
      '7-12': percentOf(form.credit7to12),
    },
    debitPercent: percentOf(form.debitPercent),
    anticipationMonthlyPercent: percentOf(form.anticipation),
    cashoutFixedCents: centsOf(form.cashoutFixed) ?? -1,
  });
  return (
    <Card title={plan ? `Alterar o plano ${plan.name}` : 'Novo plano'}>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        {field('name', 'Nome do plano')}
        {field('pixPercent', 'PIX (%)')}
        {field('pixFixed', 'PIX fixo (R$)')}
        {field('boletoFixed', 'Boleto (R$)')}
        {field('credit1', 'Crédito à vista (%)')}
        {field('credit2to6', 'Crédito 2–6x (%)')}
        {field('credit7to12', 'Crédito 7–12x (%)')}
        {field('debitPercent', 'Débito (%)')}
        {field('anticipation', 'Antecipação ao mês (%)')}
        {field('cashoutFixed', 'Saque (R$)')}
        <Decision
          submit
          label={plan ? 'Salvar plano' : 'Criar plano'}
          title={plan ? 'Alterar o plano de tarifas?' : 'Criar o plano de tarifas?'}
          confirmLabel={plan ? 'Salvar plano' : 'Criar plano'}
          run={async () => {
            if (plan) {
              const changed = await api.updateFeePlan(plan.id, body());
              return `Plano "${changed.name}" alterado: vale para as vendas criadas a partir de agora.`;
            }
            const made = await api.createFeePlan(body());
            setForm(EMPTY);
            return `Plano "${made.name}" criado. Aplique-o a uma conta na página dela.`;
          }}
          onDone={() => {
            onMade();
            onClose?.();
          }}
        >
          <p>
            <strong>{form.name.trim()}</strong>: PIX {pct(form.pixPercent)} + R$ {form.pixFixed}, boleto R${' '}
            {form.boletoFixed}, crédito {pct(form.credit1)} / {pct(form.credit2to6)} / {pct(form.credit7to12)}
            , débito {pct(form.debitPercent)}, antecipação {pct(form.anticipation)} ao mês, saque R${' '}
            {form.cashoutFixed}. As tarifas de uma venda são fixadas ao criá-la:{' '}
            {plan ? 'a mudança' : 'uma mudança do plano'} vale só para as vendas criadas depois.
          </p>
        </Decision>
        {onClose && (
          <button type="button" class="secondary" onClick={onClose}>
            Cancelar
          </button>
        )}
      </form>
    </Card>
  );
}

/** Tarifas: the fee plans (finance creates them; an account is put on one from its page). */
export function FeePlans() {
  const [plans, setPlans] = useState<FeePlan[] | null>(null);
  const [editing, setEditing] = useState<FeePlan | null>(null);
  const { error, attempt } = useAttempt();
  const load = () => attempt(async () => setPlans((await api.feePlans()).data));
  useEffect(() => {
    void load();
  }, []);
  return (
    <section>
      <h1>Tarifas</h1>
      <ErrorText error={error} />
      {plans && (
        <Table
          label="Planos de tarifas"
          head={[
            'Plano',
            'PIX',
            'Boleto',
            'Crédito à vista',
            '2–6x',
            '7–12x',
            'Débito',
            'Antecipação',
            'Saque',
            '',
          ]}
          empty={plans.length === 0 && 'Nenhum plano ainda.'}
        >
          {plans.map((p) => (
            <tr key={p.id}>
              <td>{p.name}</td>
              <td>
                {pct(p.pixPercent)}
                {p.pixFixedCents > 0 && ` + ${money(p.pixFixedCents)}`}
              </td>
              <td>{money(p.boletoFixedCents)}</td>
              <td>{pct(p.creditPercent['1'])}</td>
              <td>{pct(p.creditPercent['2-6'])}</td>
              <td>{pct(p.creditPercent['7-12'])}</td>
              <td>{pct(p.debitPercent)}</td>
              <td>{pct(p.anticipationMonthlyPercent)} a.m.</td>
              <td>{money(p.cashoutFixedCents)}</td>
              <td>
                {reaches('finance') && (
                  <button
                    type="button"
                    class="secondary"
                    aria-label={`Alterar o plano ${p.name}`}
                    onClick={() => setEditing(p)}
                  >
                    Alterar
                  </button>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
      {reaches('finance') && editing && (
        <PlanForm key={editing.id} plan={editing} onMade={load} onClose={() => setEditing(null)} />
      )}
      {reaches('finance') && !editing && <PlanForm onMade={load} />}
    </section>
  );
}

/** On an account's page: put it on a plan (finance), confirmed first. */
export function AssignPlan({ accountId, onDone }: { accountId: number; onDone: () => void }) {
  const [plans, setPlans] = useState<FeePlan[]>([]);
  const [planId, setPlanId] = useState('');
  const { error, attempt } = useAttempt();
  useEffect(() => {
    // the plans are finance's to read: another role is not sent to be refused
    if (reaches('finance')) void attempt(async () => setPlans((await api.feePlans()).data));
  }, []);
  if (!reaches('finance') || plans.length === 0) return null;
  const plan = plans.find((p) => String(p.id) === planId);
  return (
    <form class="filters" onSubmit={(e) => e.preventDefault()}>
      <div class="wide">
        <label for="assign-plan">Plano de tarifas</label>
        <select id="assign-plan" required value={planId} onChange={(e) => setPlanId(e.currentTarget.value)}>
          <option value="">Escolha um plano</option>
          {plans.map((p) => (
            <option key={p.id} value={String(p.id)}>
              {p.name}
            </option>
          ))}
        </select>
      </div>
      <Decision
        submit
        label="Aplicar plano"
        title="Aplicar o plano de tarifas?"
        run={async () => {
          const applied = await api.assignFeePlan(accountId, Number(planId));
          return `Plano "${applied.name}" aplicado à conta: vale para as vendas criadas a partir de agora.`;
        }}
        onDone={onDone}
      >
        <p>
          A conta passa ao plano <strong>{plan?.name}</strong>. As vendas já criadas mantêm as tarifas com que
          foram criadas.
        </p>
      </Decision>
      <ErrorText error={error} />
    </form>
  );
}
