import { useEffect, useState } from 'preact/hooks';
import { centsOf, date } from '../../ui/format';
import { Card, ErrorText, Options, Table, useAttempt } from '../../ui/kit';
import { label } from '../../ui/labels';
import { api, type RiskRule, type RiskRuleInput, reaches } from '../api';
import { Decision } from '../Decision';
import { PAYMENT_METHOD, RISK_ACTION } from '../labels';
import { LISTS, type ListField, whenText } from '../risk-words';

type Method = NonNullable<RiskRuleInput['when']['methods']>[number];

/** One entry a line (or separated by commas). */
const entries = (text: string) =>
  text
    .split(/[\n,]/)
    .map((e) => e.trim())
    .filter((e) => e !== '');

function summary(rule: RiskRule): string {
  return whenText(rule.when);
}

const EMPTY = {
  name: '',
  action: 'block',
  above: '',
  methods: [] as Method[],
  lists: {} as Record<ListField, string>,
};

function ruleOf(form: typeof EMPTY): RiskRuleInput {
  const when: RiskRuleInput['when'] = {};
  if (form.methods.length > 0) when.methods = form.methods;
  if (form.above.trim() !== '') when.amountCentsAbove = centsOf(form.above) ?? -1;
  for (const list of LISTS) {
    const values = entries(form.lists[list.key] ?? '');
    if (values.length > 0) when[list.key] = values;
  }
  return { name: form.name.trim(), action: form.action as RiskRuleInput['action'], when };
}

function NewRule({ onMade }: { onMade: () => void }) {
  const [form, setForm] = useState(EMPTY);
  const draft = ruleOf(form);
  const conditions = summary({ ...draft, id: 0, createdBy: '', createdAt: '' } as RiskRule);
  return (
    <Card title="Nova regra">
      <form onSubmit={(e) => e.preventDefault()}>
        <div class="filters">
          <div>
            <label for="rule-name">Nome da regra</label>
            <input
              id="rule-name"
              required
              value={form.name}
              onInput={(e) => setForm({ ...form, name: e.currentTarget.value })}
            />
          </div>
          <div>
            <label for="rule-action">Ação</label>
            <select
              id="rule-action"
              value={form.action}
              onChange={(e) => setForm({ ...form, action: e.currentTarget.value })}
            >
              <Options labels={RISK_ACTION} />
            </select>
          </div>
          <div>
            <label for="rule-above">Valor acima de (R$)</label>
            <input
              id="rule-above"
              inputMode="decimal"
              value={form.above}
              onInput={(e) => setForm({ ...form, above: e.currentTarget.value })}
            />
          </div>
        </div>
        <fieldset class="filters">
          <legend>Meios de pagamento (nenhum marcado: todos)</legend>
          {(Object.keys(PAYMENT_METHOD) as Method[]).map((m) => (
            <label key={m}>
              <input
                type="checkbox"
                checked={form.methods.includes(m)}
                onChange={(e) =>
                  setForm({
                    ...form,
                    methods: e.currentTarget.checked
                      ? [...form.methods, m]
                      : form.methods.filter((x) => x !== m),
                  })
                }
              />{' '}
              {label(PAYMENT_METHOD, m)}
            </label>
          ))}
        </fieldset>
        <div class="filters">
          {LISTS.map((list) => (
            <div key={list.key}>
              <label for={`rule-${list.key}`}>{list.label}</label>
              <textarea
                id={`rule-${list.key}`}
                rows={2}
                placeholder={list.hint}
                value={form.lists[list.key] ?? ''}
                onInput={(e) =>
                  setForm({ ...form, lists: { ...form.lists, [list.key]: e.currentTarget.value } })
                }
              />
            </div>
          ))}
        </div>
        <p class="muted">
          Todas as condições preenchidas precisam valer; numa lista, basta uma entrada. Uma por linha. Um
          e-mail vale também escrito com +etiqueta, maiúsculas ou ponto final no domínio (no Gmail, com pontos
          no nome); um domínio vale também para os seus subdomínios; uma faixa IPv6 mapeada (::ffff:…) vale
          para os endereços IPv4 que representa.
        </p>
        <Decision
          submit
          label="Criar regra"
          title="Criar a regra de risco?"
          danger={form.action === 'block'}
          confirmLabel="Criar regra"
          // a rule needs a condition (the server refuses one without): not confirmed before one is filled
          ready={Boolean(conditions)}
          waiting="Dê à regra ao menos uma condição para confirmar."
          run={async () => {
            const rule = await api.createRiskRule(ruleOf(form));
            setForm(EMPTY);
            return `Regra "${rule.name}" criada: ${label(RISK_ACTION, rule.action).toLowerCase()} vale a partir de agora.`;
          }}
          onDone={onMade}
        >
          <p>
            <strong>{draft.name}</strong>: {label(RISK_ACTION, draft.action)}{' '}
            {conditions
              ? `quando ${conditions}. Vale para todas as contas a partir de agora.`
              : '— falta uma condição: preencha ao menos uma (valor, formas de pagamento ou uma lista) antes de criar a regra.'}
          </p>
        </Decision>
      </form>
    </Card>
  );
}

/** Regras de risco: the rules and blocklists in force (risk operators write and delete them). */
export function RiskRules() {
  const [rules, setRules] = useState<RiskRule[] | null>(null);
  const { error, attempt } = useAttempt();
  const load = () => attempt(async () => setRules((await api.riskRules()).data));
  useEffect(() => {
    void load();
  }, []);
  return (
    <section>
      <h1>Regras de risco</h1>
      <p class="muted">
        Bloquear: a venda é recusada (RISK_BLOCKED) sem chegar ao adquirente ou ao PSP. Analisar: a
        autorização do cartão fica retida sem captura na Fila de análise.
      </p>
      <ErrorText error={error} />
      {rules && (
        <Table
          label="Regras em vigor"
          head={['Regra', 'Condições', 'Ação', 'Criada por', 'Em', '']}
          empty={rules.length === 0 && 'Nenhuma regra ainda.'}
        >
          {rules.map((r) => (
            <tr key={r.id}>
              <td>
                #{r.id} {r.name}
              </td>
              <td>{summary(r)}</td>
              <td>{label(RISK_ACTION, r.action)}</td>
              <td>{r.createdBy}</td>
              <td>{date(r.createdAt)}</td>
              <td>
                <Decision
                  label="Excluir"
                  ariaLabel={`Excluir a regra ${r.name}`}
                  title="Excluir a regra?"
                  danger
                  confirmLabel="Excluir regra"
                  run={async () => {
                    await api.deleteRiskRule(r.id);
                    return `Regra "${r.name}" excluída: deixa de valer a partir de agora.`;
                  }}
                  onDone={() => void load()}
                >
                  <p>
                    <strong>{r.name}</strong> ({summary(r)}) deixa de valer para as próximas vendas.
                  </p>
                </Decision>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {reaches('risk') && <NewRule onMade={load} />}
    </section>
  );
}
