import { useEffect, useState } from 'preact/hooks';
import { date } from '../../ui/format';
import { Card, ErrorText, Table, useAttempt } from '../../ui/kit';
import { api, type Delivery, type Webhook } from '../api';
import { announceDone } from '../Decision';

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
                <button
                  type="button"
                  class="secondary"
                  aria-label={`Reenviar a entrega ${d.id}`}
                  onClick={() =>
                    attempt(async () => {
                      await api.resend(accountId, d.id);
                      announceDone(`Entrega #${d.id} reenviada: o resultado aparece nesta lista.`);
                      setRows(await api.deliveries(accountId, webhook.id));
                    })
                  }
                >
                  Reenviar
                </button>
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
