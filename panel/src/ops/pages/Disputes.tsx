import { useEffect, useState } from 'preact/hooks';
import { date, money, timeLeft } from '../../ui/format';
import { ErrorText, Table, useAttempt } from '../../ui/kit';
import { DISPUTE_KIND, DISPUTE_STATUS, label } from '../../ui/labels';
import { api, type Dispute } from '../api';

/** Contestações: every account's disputes, open ones first by deadline. */
export function Disputes() {
  const [open, setOpen] = useState(true);
  const [rows, setRows] = useState<Dispute[] | null>(null);
  const { error, attempt } = useAttempt();
  useEffect(() => {
    void attempt(async () => setRows((await api.disputes({ open })).data));
  }, [open]);
  return (
    <section>
      <h1>Contestações</h1>
      <div class="filters">
        <label class="check">
          <input type="checkbox" checked={!open} onChange={(e) => setOpen(!e.currentTarget.checked)} />
          Mostrar também as encerradas
        </label>
      </div>
      <ErrorText error={error} />
      {rows && (
        <Table
          label="Contestações"
          head={['Conta', 'Venda', 'Tipo', 'Valor', 'Situação', 'Prazo', 'Aberta em']}
          empty={rows.length === 0 && 'Nenhuma contestação.'}
        >
          {rows.map((d) => (
            <tr key={d.id}>
              <td>
                <a href={`#/contas/${d.accountId}`}>{d.accountName ?? `#${d.accountId}`}</a>
              </td>
              <td>{d.saleId.slice(0, 8)}</td>
              <td>{label(DISPUTE_KIND, d.kind)}</td>
              <td>{money(d.amountCents)}</td>
              <td>{label(DISPUTE_STATUS, d.status)}</td>
              <td>
                {d.status === 'needs_response'
                  ? `${timeLeft(d.respondBy)} (${date(d.respondBy)})`
                  : date(d.respondBy)}
              </td>
              <td>{date(d.createdAt)}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
