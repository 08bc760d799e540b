import { useEffect, useState } from 'preact/hooks';
import { date, moneyText } from '../../ui/format';
import { ErrorText, Options, Table, useAttempt } from '../../ui/kit';
import { label, WITHDRAWAL_STATUS } from '../../ui/labels';
import { api, type OpsWithdrawal, reaches } from '../api';
import { Decision } from '../Decision';
import { WITHDRAWAL_QUEUE } from '../labels';

/** Release or cancel a withdrawal waiting for review (risk and above), each confirmed first. */
export function HeldActions({ withdrawal, onDone }: { withdrawal: OpsWithdrawal; onDone: () => void }) {
  if (!reaches('risk')) return <span class="muted">Aguardando análise</span>;
  const what = `o saque #${withdrawal.id} de ${moneyText(withdrawal.amount)}${withdrawal.accountName ? ` (${withdrawal.accountName})` : ''}`;
  return (
    <>
      <Decision
        label="Liberar"
        ariaLabel={`Liberar o saque ${withdrawal.id}`}
        title="Liberar o saque?"
        run={async () => {
          await api.decideWithdrawal(withdrawal.id, 'release');
          return `Saque #${withdrawal.id} liberado: segue para o pagamento.`;
        }}
        onDone={onDone}
      >
        <p>
          Libera {what}: ele é enviado para o pagamento à chave {withdrawal.pixKey}.
        </p>
      </Decision>{' '}
      <Decision
        label="Cancelar"
        ariaLabel={`Cancelar o saque ${withdrawal.id}`}
        title="Cancelar o saque?"
        danger
        confirmLabel="Cancelar o saque"
        run={async () => {
          await api.decideWithdrawal(withdrawal.id, 'cancel');
          return `Saque #${withdrawal.id} cancelado: o valor voltou ao saldo disponível da conta.`;
        }}
        onDone={onDone}
      >
        <p>Cancela {what}: o valor volta ao saldo disponível da conta, que é avisada.</p>
      </Decision>
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
              <td>
                #{w.id} <span class="muted">{w.uuid.slice(0, 8)}</span>
              </td>
              <td>
                <a href={`#/contas/${w.accountId}`}>{w.accountName ?? `#${w.accountId}`}</a>
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
