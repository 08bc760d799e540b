import { useEffect, useState } from 'preact/hooks';
import { date } from '../../ui/format';
import { Card, ErrorText, Table, useAttempt } from '../../ui/kit';
import { api, type Delivery, type Webhook } from '../api';
import { Decision } from '../Decision';

const DELIVERY_STATUS: Record<string, string> = {
  PENDING: 'Pendente',
  DELIVERED: 'Entregue',
  FAILED: 'Falhou',
  SKIPPED: 'Não enviada (webhook desativado)',
};

function Log({ accountId, webhook }: { accountId: number; webhook: Webhook }) {
  const [rows, setRows] = useState<Delivery[] | null>(null);
  const { error, attempt } = useAttempt();
  const load = () => attempt(async () => setRows(await api.deliveries(accountId, webhook.id)));
  return (
    <>
      <p>
        <code>{webhook.webhookUrl}</code> — {webhook.events.join(', ')}{' '}
        {rows === null && (
          <button type="button" class="secondary" onClick={load}>
            Ver entregas
          </button>
        )}
      </p>
      <ErrorText error={error} />
      {rows && (
        <Table
          label={`Entregas para ${webhook.webhookUrl}`}
          head={['Entrega', 'Evento', 'Situação', 'Resposta', 'Tentativas', 'Criada em', 'Ação']}
          empty={rows.length === 0 && 'Nenhuma entrega.'}
        >
          {rows.map((d) => (
            <tr key={d.id}>
              <td>#{d.id}</td>
              <td>{d.event}</td>
              <td>{DELIVERY_STATUS[d.status] ?? d.status}</td>
              <td>{d.statusCode ?? d.error ?? '—'}</td>
              <td>{d.attempts}</td>
              <td>{date(d.createdAt)}</td>
              <td>
                <Decision
                  label="Reenviar"
                  ariaLabel={`Reenviar a entrega ${d.id}`}
                  title={`Reenviar a entrega #${d.id}?`}
                  run={async () => {
                    await api.resend(accountId, d.id);
                    setRows(await api.deliveries(accountId, webhook.id));
                    return `Entrega #${d.id} reenviada: o resultado aparece nesta lista.`;
                  }}
                >
                  <p>
                    O evento {d.event} é enviado de novo para <code>{webhook.webhookUrl}</code>, com o mesmo
                    conteúdo: o lojista o recebe mais uma vez.
                  </p>
                </Decision>
              </td>
            </tr>
          ))}
        </Table>
      )}
    </>
  );
}

/** An account's webhooks and their delivery log; support may resend a delivery. */
export function AccountDeliveries({ accountId }: { accountId: number }) {
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const { error, attempt } = useAttempt();
  useEffect(() => {
    void attempt(async () => setHooks(await api.webhooks(accountId)));
  }, [accountId]);
  return (
    <Card title="Webhooks e entregas">
      <ErrorText error={error} />
      {hooks?.length === 0 && <p class="muted">Nenhum webhook.</p>}
      {hooks?.map((h) => (
        <Log key={h.id} accountId={accountId} webhook={h} />
      ))}
    </Card>
  );
}
