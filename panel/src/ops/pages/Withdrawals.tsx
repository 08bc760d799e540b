import { useEffect, useState } from 'preact/hooks';
import { date, moneyText } from '../../ui/format';
import { ErrorText, Options, Table, useAttempt } from '../../ui/kit';
import { label, WITHDRAWAL_STATUS } from '../../ui/labels';
import { api, type OpsWithdrawal, reaches } from '../api';
import { WITHDRAWAL_QUEUE } from '../labels';

/** Release or cancel a withdrawal waiting for review (risk and above). */
export function HeldActions({ withdrawal, onDone }: { withdrawal: OpsWithdrawal; onDone: () => void }) {
  const { error, attempt } = useAttempt();
  if (!reaches('risk')) return <span class="muted">Aguardando análise</span>;
  const decide = (decision: 'release' | 'cancel') =>
    attempt(async () => {
      await api.decideWithdrawal(withdrawal.id, decision);
      onDone();
    });
  return (
    <>
      <button type="button" aria-label={`Liberar o saque ${withdrawal.id}`} onClick={() => decide('release')}>
        Liberar
      </button>{' '}
      <button
        type="button"
        class="danger"
        aria-label={`Cancelar o saque ${withdrawal.id}`}
        onClick={() => decide('cancel')}
      >
        Cancelar
      </button>
      <ErrorText error={error} />
    </>
  );
}

/** Saques: every account's withdrawals in a queue — held (oldest first), pending, failed or stuck. */
export function Withdrawals() {
  const [queue, setQueue] = useState('held');
  const [rows, setRows] = useState<OpsWithdrawal[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const { error, attempt } = useAttempt();
  const load = (cursor?: string) =>
    attempt(async () => {
      const page = await api.withdrawals({ queue, ...(cursor ? { cursor } : {}) });
      setRows((before) => (cursor ? [...(before ?? []), ...page.data] : page.data));
      setNext(page.nextCursor);
    });
  useEffect(() => {
    void load();
  }, [queue]);
  return (
    <section>
      <h1>Saques</h1>
      <div class="filters">
        <div>
          <label for="queue">Fila</label>
          <select id="queue" value={queue} onChange={(e) => setQueue(e.currentTarget.value)}>
            <Options labels={WITHDRAWAL_QUEUE} />
          </select>
        </div>
      </div>
      <ErrorText error={error} />
      {rows && (
        <Table
          label={label(WITHDRAWAL_QUEUE, queue)}
          head={['Saque', 'Conta', 'Valor', 'Chave PIX', 'Situação', 'Criado em', 'Ações']}
          empty={rows.length === 0 && 'Nenhum saque nesta fila.'}
        >
          {rows.map((w) => (
            <tr key={w.id}>
              <td>#{w.id}</td>
              <td>
                <a href={`#/contas/${w.accountId}`}>#{w.accountId}</a>
              </td>
              <td>{moneyText(w.amount)}</td>
              <td>{w.pixKey}</td>
              <td>{label(WITHDRAWAL_STATUS, w.status)}</td>
              <td>{date(w.createdAt)}</td>
              <td>
                {w.status === 'AWAITING_REVIEW' ? <HeldActions withdrawal={w} onDone={() => load()} /> : '—'}
              </td>
            </tr>
          ))}
        </Table>
      )}
      {next && (
        <button type="button" class="secondary" onClick={() => load(next)}>
          Mais saques
        </button>
      )}
    </section>
  );
}
