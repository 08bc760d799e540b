import { useEffect, useState } from 'preact/hooks';
import { api, type Customer, can, type Plan, type SalesPage, type Subscription } from '../api';
import { date, day, money } from '../ui/format';
import { Card, CopyButton, ErrorText, Table } from '../ui/kit';
import { label, METHODS, SALE_STATUS } from '../ui/labels';
import { brandName } from './CardInputs';
import { CancelButtons, every, nextChargeText, statusText } from './Subscriptions';

/**
 * `#/assinaturas/<id>`: one subscription, its customer and card, the customer's page (to send again to a customer
 * who lost the e-mail) and its sales, one per try at a period.
 */
export function SubscriptionDetail({ id }: { id: string }) {
  const [sub, setSub] = useState<Subscription | null>(null);
  const [customer, setCustomer] = useState<Customer | null>(null);
  const [plan, setPlan] = useState<Plan | null>(null);
  const [nextPlan, setNextPlan] = useState<Plan | null>(null);
  const [sales, setSales] = useState<SalesPage['data'] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api
      .subscription(id)
      .then((s) => {
        setSub(s);
        api.customer(s.customerId).then(setCustomer, setError);
        api.plans().then((p) => {
          setPlan(p.data.find((x) => x.id === s.planId) ?? null);
          setNextPlan(p.data.find((x) => x.id === s.nextPlanId) ?? null);
        }, setError);
      })
      .catch(setError);
    api
      .sales({ subscriptionId: id, limit: '100' })
      .then((p) => setSales(p.data))
      .catch(setError);
  }, [id]);
  const card = sub?.cardId ? customer?.cards.find((c) => c.id === sub.cardId) : undefined;
  return (
    <>
      <p>
        <a href="#/assinaturas">← Assinaturas</a>
      </p>
      <h1>{customer ? `Assinatura de ${customer.name}` : 'Assinatura'}</h1>
      <ErrorText error={error} />
      {sub && (
        <>
          <Card title="Assinatura">
            <dl class="detail">
              <dt>Cliente</dt>
              <dd>{customer ? `${customer.name} (${customer.email})` : sub.customerId}</dd>
              <dt>Plano</dt>
              <dd>
                {plan ? `${plan.name} (${money(plan.amountCents)} ${every(plan)})` : money(sub.amountCents)}
              </dd>
              {sub.nextPlanId && !sub.cancelAtPeriodEnd && (
                <>
                  <dt>Próximo plano</dt>
                  <dd>
                    {nextPlan
                      ? `${nextPlan.name} (${money(nextPlan.amountCents)} ${every(nextPlan)})`
                      : 'outro plano'}
                    , a partir do próximo período (o período atual segue no plano de hoje)
                  </dd>
                </>
              )}
              <dt>Forma de pagamento</dt>
              <dd>
                {label(METHODS, sub.idRec ? 'PIX_AUTOMATICO' : sub.paymentMethod)}
                {card && ` · ${brandName(card.brand)} final ${card.lastFour}`}
              </dd>
              <dt>Situação</dt>
              <dd>
                {statusText(sub)}
                {sub.cancelAtPeriodEnd && sub.status !== 'canceled' ? ' (termina no fim do período)' : ''}
              </dd>
              <dt>Período atual</dt>
              <dd>
                {day(sub.currentPeriodStart)} a {day(sub.currentPeriodEnd)}
              </dd>
              <dt>Próxima cobrança</dt>
              <dd>{nextChargeText(sub)}</dd>
              <dt>Criada em</dt>
              <dd>{date(sub.createdAt)}</dd>
            </dl>
            <CancelButtons sub={sub} onDone={setSub} />
          </Card>
          {can('sales.create') && sub.billingUrl && (
            <Card title="Página do assinante">
              <p class="muted">
                Enviada ao cliente em cada e-mail da assinatura: nela ele vê as cobranças, troca o cartão e
                cancela. Quem tem este endereço abre a página: envie-o somente ao cliente.
              </p>
              <p>
                <code class="wrap">{sub.billingUrl}</code>
              </p>
              <CopyButton text={sub.billingUrl} label="Copiar endereço" />
            </Card>
          )}
        </>
      )}
      <Table
        label="Vendas da assinatura"
        head={['Data', 'Venda', 'Valor', 'Status']}
        empty={sales?.length === 0 && 'Nenhuma venda ainda.'}
      >
        {(sales ?? []).map((s) => (
          <tr key={s.uuid}>
            <td>{date(s.date)}</td>
            <td class="text">
              <a href={`#/vendas/${s.uuid}`}>{s.id}</a>
            </td>
            <td class="money">{money(s.amount)}</td>
            <td class="text">{label(SALE_STATUS, s.status)}</td>
          </tr>
        ))}
      </Table>
    </>
  );
}
