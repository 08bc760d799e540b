import { useEffect, useState } from 'preact/hooks';
import { date, money } from '../../ui/format';
import { ErrorText, Table, useAttempt } from '../../ui/kit';
import { api, type OpsAnticipation, reaches } from '../api';
import { Decision } from '../Decision';
import { ANTICIPATION_STATUS } from '../labels';

/** Antecipações: every account's, those waiting first; finance approves (paid at once) or rejects. */
export function Anticipations() {
  const [waiting, setWaiting] = useState(true);
  const [rows, setRows] = useState<OpsAnticipation[] | null>(null);
  const { error, attempt } = useAttempt();
  const load = () =>
    attempt(async () => setRows((await api.anticipations(waiting ? 'requested' : undefined)).data));
  useEffect(() => {
    void load();
  }, [waiting]);
  return (
    <section>
      <h1>Antecipações</h1>
      <div class="filters">
        <label class="check">
          <input type="checkbox" checked={!waiting} onChange={(e) => setWaiting(!e.currentTarget.checked)} />{' '}
          Mostrar todas
        </label>
      </div>
      <ErrorText error={error} />
      {rows && (
        <Table
          label="Antecipações"
          head={['Pedida em', 'Conta', 'Bruto', 'Tarifa', 'Líquido', 'Parcelas', 'Situação', 'Decisão']}
          empty={rows.length === 0 && 'Nenhuma antecipação aguardando decisão.'}
        >
          {rows.map((a) => (
            <tr key={a.id}>
              <td>{date(a.createdAt)}</td>
              <td>
                <a href={`#/contas/${a.accountId}`}>{a.accountName ?? `#${a.accountId}`}</a>
              </td>
              <td>{money(a.grossCents)}</td>
              <td>{money(a.feeCents)}</td>
              <td>{money(a.netCents)}</td>
              <td>{a.receivables.length}</td>
              <td>{ANTICIPATION_STATUS[a.status] ?? a.status}</td>
              <td>
                {a.status === 'requested' && reaches('finance') ? (
                  <>
                    <Decision
                      label="Aprovar"
                      ariaLabel={`Aprovar a antecipação de ${money(a.grossCents)} de ${a.accountName ?? `#${a.accountId}`}`}
                      title="Aprovar a antecipação?"
                      run={async () => {
                        await api.decideAnticipation(a.id, 'approve');
                        return `Antecipação aprovada e paga: ${money(a.netCents)} entraram no saldo disponível da conta.`;
                      }}
                      onDone={() => void load()}
                    >
                      <p>
                        <strong>{a.accountName ?? `Conta #${a.accountId}`}</strong>: {money(a.grossCents)} em{' '}
                        {a.receivables.length} parcela(s), tarifa de {money(a.feeCents)}: {money(a.netCents)}{' '}
                        entram no saldo disponível da conta agora.
                      </p>
                    </Decision>{' '}
                    <Decision
                      label="Recusar"
                      ariaLabel={`Recusar a antecipação de ${money(a.grossCents)} de ${a.accountName ?? `#${a.accountId}`}`}
                      title="Recusar a antecipação?"
                      danger
                      run={async () => {
                        await api.decideAnticipation(a.id, 'reject');
                        return 'Antecipação recusada: os recebíveis seguem nas datas de sempre.';
                      }}
                      onDone={() => void load()}
                    >
                      <p>
                        A antecipação de {money(a.grossCents)} de{' '}
                        <strong>{a.accountName ?? `Conta #${a.accountId}`}</strong> é recusada; os recebíveis
                        seguem nas datas de sempre.
                      </p>
                    </Decision>
                  </>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
