import { useEffect, useState } from 'preact/hooks';
import { date, money } from '../../ui/format';
import { ErrorText, Table, useAttempt } from '../../ui/kit';
import { type Anticipation, api, reaches } from '../api';

const STATUS: Record<string, string> = {
  requested: 'Aguardando decisão',
  approved: 'Aprovada',
  rejected: 'Recusada',
  paid: 'Paga',
};

/** Antecipações: every account's, those waiting first; finance approves (paid at once) or rejects. */
export function Anticipations() {
  const [waiting, setWaiting] = useState(true);
  const [rows, setRows] = useState<Anticipation[] | null>(null);
  const { error, attempt } = useAttempt();
  const load = () =>
    attempt(async () => setRows((await api.anticipations(waiting ? 'requested' : undefined)).data));
  useEffect(() => {
    void load();
  }, [waiting]);
  const decide = (id: string, decision: 'approve' | 'reject') =>
    attempt(async () => {
      await api.decideAnticipation(id, decision);
      await load();
    });
  return (
    <section>
      <h1>Antecipações</h1>
      <div class="filters">
        <label>
          <input type="checkbox" checked={!waiting} onChange={(e) => setWaiting(!e.currentTarget.checked)} />{' '}
          Mostrar todas
        </label>
      </div>
      <ErrorText error={error} />
      {rows && (
        <Table
          label="Antecipações"
          head={['Pedida em', 'Bruto', 'Tarifa', 'Líquido', 'Parcelas', 'Situação', 'Decisão']}
          empty={rows.length === 0 && 'Nenhuma antecipação aguardando decisão.'}
        >
          {rows.map((a) => (
            <tr key={a.id}>
              <td>{date(a.createdAt)}</td>
              <td>{money(a.grossCents)}</td>
              <td>{money(a.feeCents)}</td>
              <td>{money(a.netCents)}</td>
              <td>{a.receivables.length}</td>
              <td>{STATUS[a.status] ?? a.status}</td>
              <td>
                {a.status === 'requested' && reaches('finance') ? (
                  <>
                    <button
                      type="button"
                      aria-label={`Aprovar a antecipação de ${money(a.grossCents)}`}
                      onClick={() => decide(a.id, 'approve')}
                    >
                      Aprovar
                    </button>{' '}
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Recusar a antecipação de ${money(a.grossCents)}`}
                      onClick={() => decide(a.id, 'reject')}
                    >
                      Recusar
                    </button>
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
