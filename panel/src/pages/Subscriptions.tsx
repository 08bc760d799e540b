import { useEffect, useState } from 'preact/hooks';
import { api, type Customer, can, type PlansPage, type Subscription } from '../api';
import { date, day, money } from '../ui/format';
import { ErrorText, Options, Table, useAttempt } from '../ui/kit';
import { label, METHODS, PLAN_INTERVAL, SUBSCRIPTION_STATUS } from '../ui/labels';
import { NewPlan, NewSubscription } from './SubscriptionForms';

type Plan = PlansPage['data'][number];

/** A subscription's state; a card one made without a card says it waits for the customer's. */
export const statusText = (s: Subscription) =>
  s.status === 'incomplete' && s.paymentMethod === 'CREDIT_CARD' && !s.cardId
    ? 'Aguardando o cartão do cliente'
    : label(SUBSCRIPTION_STATUS, s.status);

export const every = (p: Plan) =>
  p.intervalCount === 1
    ? `por ${PLAN_INTERVAL[p.interval]![0]}`
    : `a cada ${p.intervalCount} ${PLAN_INTERVAL[p.interval]![1]}`;

/** When the next charge comes: none for one ending at its period's end. */
export const nextChargeText = (s: Subscription) =>
  s.cancelAtPeriodEnd
    ? `Nenhuma: termina em ${day(s.currentPeriodEnd)}`
    : s.nextChargeAt
      ? date(s.nextChargeAt)
      : '—';

/** Cancel now or at the period's end, for whoever may create charges. */
export function CancelButtons({ sub, onDone }: { sub: Subscription; onDone: (s: Subscription) => void }) {
  const { error, act } = useAttempt();
  if (!can('sales.create') || sub.status === 'canceled') return null;
  const cancel = (atPeriodEnd: boolean) =>
    act(async () => onDone(await api.cancelSubscription(sub.id, atPeriodEnd)));
  return (
    <>
      {!sub.cancelAtPeriodEnd && (
        <button
          type="button"
          class="link"
          onClick={() => {
            // no charge after this period, its Pix or boleto already sent for the next one cancelled: asked too
            if (!window.confirm('Cancelar esta assinatura no fim do período? Não haverá novas cobranças.'))
              return;
            void cancel(true);
          }}
          aria-label={`Cancelar no fim do período a assinatura ${sub.id}`}
        >
          Cancelar no fim do período
        </button>
      )}{' '}
      <button
        type="button"
        class="link"
        onClick={() => {
          // ends it at once, its open charge with it: asked, as every other cancel in the panel is
          if (!window.confirm('Cancelar esta assinatura agora? Não haverá novas cobranças.')) return;
          void cancel(false);
        }}
        aria-label={`Cancelar agora a assinatura ${sub.id}`}
      >
        Cancelar agora
      </button>
      <ErrorText error={error} />
    </>
  );
}

/** A plan turned off (it takes no new subscriptions; those it has go on) or on again. */
function PlanSwitch({ plan, onDone }: { plan: Plan; onDone: (p: Plan) => void }) {
  const { error, act } = useAttempt();
  if (!can('sales.create')) return null;
  return (
    <>
      <button
        type="button"
        class="link"
        onClick={() => act(async () => onDone(await api.changePlan(plan.id, { active: !plan.active })))}
        aria-label={`${plan.active ? 'Desativar' : 'Reativar'} o plano ${plan.name}`}
      >
        {plan.active ? 'Desativar' : 'Reativar'}
      </button>
      <ErrorText error={error} />
    </>
  );
}

/**
 * Assinaturas: each subscription with its customer, plan, state and next charge; the plans beneath. Whoever may
 * issue charges makes plans and subscriptions here (the API's own routes, by the panel's door).
 */
export function Subscriptions() {
  const [status, setStatus] = useState('');
  const [rows, setRows] = useState<Subscription[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [plans, setPlans] = useState<Plan[]>([]);
  const [customers, setCustomers] = useState<Map<string, Customer>>(new Map());
  const [error, setError] = useState<unknown>(null);
  const load = (more?: string) =>
    api
      .subscriptions({ status: status || undefined, cursor: more })
      .then((p) => {
        setRows((before) => (more ? [...(before ?? []), ...p.data] : p.data));
        setCursor(p.nextCursor);
      })
      .catch(setError);
  useEffect(() => {
    void load();
  }, [status]);
  useEffect(() => {
    api.plans().then((p) => setPlans(p.data), setError);
    api
      .customers({ limit: '100' })
      .then((p) => setCustomers(new Map(p.data.map((c) => [c.id, c]))), setError);
  }, []);
  const planOf = (id: string) => plans.find((p) => p.id === id);
  const replace = (s: Subscription) => setRows((list) => (list ?? []).map((r) => (r.id === s.id ? s : r)));
  return (
    <>
      <h1>Assinaturas</h1>
      <p class="muted">
        Cada período de uma assinatura é uma venda. Um cartão recusado é cobrado de novo nos dias de nova
        tentativa; o cliente troca o cartão ou cancela pela página da assinatura, enviada em cada e-mail.
      </p>
      {can('sales.create') && (
        <>
          <NewPlan onMade={(plan) => setPlans((list) => [plan, ...list])} />
          <NewSubscription
            plans={plans}
            customers={[...customers.values()]}
            onMade={(sub, customer) => {
              setCustomers((known) => new Map(known).set(customer.id, customer));
              setRows((list) => [sub, ...(list ?? [])]);
            }}
          />
        </>
      )}
      <div class="filters">
        <div>
          <label for="subscription-status">Situação</label>
          <select id="subscription-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <Options labels={SUBSCRIPTION_STATUS} all="Todas" />
          </select>
        </div>
      </div>
      <ErrorText error={error} />
      <Table
        label="Assinaturas"
        head={['Cliente', 'Plano', 'Forma', 'Situação', 'Período atual', 'Próxima cobrança', '']}
        empty={rows?.length === 0 && 'Nenhuma assinatura.'}
      >
        {(rows ?? []).map((s) => {
          const plan = planOf(s.planId);
          return (
            <tr key={s.id}>
              <td class="text">
                <a
                  href={`#/assinaturas/${s.id}`}
                  aria-label={`Ver a assinatura de ${customers.get(s.customerId)?.name ?? s.customerId}`}
                >
                  {customers.get(s.customerId)?.name ?? s.customerId}
                </a>
              </td>
              <td class="text">
                {plan ? `${plan.name} (${money(plan.amountCents)} ${every(plan)})` : money(s.amountCents)}
                {s.nextPlanId && !s.cancelAtPeriodEnd && (
                  <span class="muted">
                    {' '}
                    · muda para {planOf(s.nextPlanId)?.name ?? 'outro plano'} no próximo período
                  </span>
                )}
              </td>
              <td class="text">{label(METHODS, s.idRec ? 'PIX_AUTOMATICO' : s.paymentMethod)}</td>
              <td class="text">
                {statusText(s)}
                {s.cancelAtPeriodEnd && s.status !== 'canceled' ? ' (termina no fim do período)' : ''}
              </td>
              <td class="text">
                {day(s.currentPeriodStart)} a {day(s.currentPeriodEnd)}
              </td>
              <td class="text">{nextChargeText(s)}</td>
              <td>
                <CancelButtons sub={s} onDone={replace} />
              </td>
            </tr>
          );
        })}
      </Table>
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Carregar mais
        </button>
      )}
      <h2>Planos</h2>
      <Table
        label="Planos"
        head={['Plano', 'Valor', 'Teste grátis', 'Formas', 'Situação', '']}
        empty={plans.length === 0 && 'Nenhum plano ainda.'}
      >
        {plans.map((p) => (
          <tr key={p.id}>
            <td class="text">{p.name}</td>
            <td class="money">
              {money(p.amountCents)} {every(p)}
            </td>
            <td class="text">{p.trialDays ? `${p.trialDays} dias` : 'Não'}</td>
            <td class="text">{p.methods.map((m) => label(METHODS, m)).join(', ')}</td>
            <td class="text">{p.active ? 'Ativo' : 'Inativo'}</td>
            <td>
              <PlanSwitch
                plan={p}
                onDone={(next) => setPlans((list) => list.map((x) => (x.id === next.id ? next : x)))}
              />
            </td>
          </tr>
        ))}
      </Table>
    </>
  );
}
