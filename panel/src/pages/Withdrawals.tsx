import { useEffect, useState } from 'preact/hooks';
import { api, can, type Withdrawal } from '../api';
import { date, moneyText } from '../ui/format';
import { Card, DetailsButton, ErrorText, Options, Table } from '../ui/kit';
import { APPROVAL_STATUS, label, PIX_KEY_TYPES, WITHDRAWAL_STATUS } from '../ui/labels';
import { usePagedList } from '../ui/paging';
import { Decide } from './Approvals';
import { NewWithdrawal } from './NewWithdrawal';

export function Withdrawals() {
  const [status, setStatus] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [selected, setSelected] = useState<Withdrawal | null>(null);
  const [sandbox, setSandbox] = useState(false);
  // bumped whenever a withdrawal of the list moves: the new withdrawal's "Saldo disponível" is read again
  const [moved, setMoved] = useState(0);
  const { rows, setRows, cursor, loaded, error, setError, load: show } = usePagedList<Withdrawal>();
  const load = (after?: string) => show(api.withdrawals({ status, from, to, cursor: after }), after);
  useEffect(() => {
    setError(null);
    void load();
  }, [status, from, to]);
  useEffect(() => {
    api.sandbox().then(
      (s) => setSandbox(s.enabled),
      () => setSandbox(false),
    );
  }, []);
  // withdrawals on their way (queued for the provider, or being paid) are read again every few seconds, so
  // that the list and the open card turn to "Concluído" or "Recusado" without a reload (the sandbox pays its
  // own within seconds); the first few only, newest first
  const moving = rows
    .filter((w) => w.status === 'PROCESSING' || (w.status === 'PENDING' && w.approval?.status !== 'awaiting'))
    .slice(0, 5)
    .map((w) => w.uuid)
    .join(' ');
  useEffect(() => {
    if (!moving) return;
    const timer = setInterval(() => {
      for (const uuid of moving.split(' ')) {
        api.withdrawal(uuid).then((w) => {
          setRows((prev) =>
            prev.map((r) => {
              if (r.uuid !== w.uuid) return r;
              if (r.status !== w.status) setMoved((n) => n + 1);
              return w;
            }),
          );
          setSelected((s) => (s?.uuid === w.uuid ? w : s));
        }, setError);
      }
    }, 2000);
    return () => clearInterval(timer);
  }, [moving]);
  return (
    <>
      <h1>Saques</h1>
      <p>
        <a href="#/saques/aprovacoes">Saques aguardando aprovação</a>
      </p>
      {can('withdrawals.create') && <NewWithdrawal onDone={() => void load()} moved={moved} />}
      <div class="filters">
        <div>
          <label for="w-status">Status</label>
          <select id="w-status" value={status} onInput={(e) => setStatus(e.currentTarget.value)}>
            <Options labels={WITHDRAWAL_STATUS} all="Todos" />
          </select>
        </div>
        <div>
          <label for="w-from">De</label>
          <input id="w-from" type="date" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        </div>
        <div>
          <label for="w-to">Até</label>
          <input id="w-to" type="date" value={to} onChange={(e) => setTo(e.currentTarget.value)} />
        </div>
        <a class="button secondary" href={api.exportUrl('withdrawals', { status, from, to })} download>
          Exportar CSV
        </a>
      </div>
      <ErrorText error={error} />
      <Table
        label="Saques"
        head={['Data', 'Chave PIX', 'Valor', 'Taxas', 'Status', '']}
        empty={loaded && rows.length === 0 && !error && 'Nenhum saque encontrado.'}
      >
        {rows.map((w) => (
          <tr key={w.id}>
            <td>{date(w.createdAt)}</td>
            <td class="text">{w.pixKey}</td>
            <td class="money">{moneyText(w.amount)}</td>
            <td class="money">{moneyText(w.fees.total)}</td>
            <td>
              {w.approval?.status === 'awaiting' && w.status === 'PENDING'
                ? label(APPROVAL_STATUS, 'awaiting')
                : label(WITHDRAWAL_STATUS, w.status)}
            </td>
            <td>
              <DetailsButton label={`Detalhes do saque ${w.id}`} onClick={() => setSelected(w)} />
            </td>
          </tr>
        ))}
      </Table>
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Carregar mais
        </button>
      )}
      {selected && (
        <Card title={`Saque ${selected.id}`} reveal={selected.id}>
          <dl class="detail">
            <dt>UUID</dt>
            <dd>{selected.uuid}</dd>
            <dt>Status</dt>
            <dd>{label(WITHDRAWAL_STATUS, selected.status)}</dd>
            <dt>Valor</dt>
            <dd>{moneyText(selected.amount)}</dd>
            <dt>Taxas</dt>
            <dd>{moneyText(selected.fees.total)}</dd>
            <dt>Líquido</dt>
            <dd>{moneyText(selected.netAmount)}</dd>
            <dt>Chave PIX</dt>
            <dd>
              {selected.pixKey} ({label(PIX_KEY_TYPES, selected.pixKeyType)})
            </dd>
            <dt>Criado em</dt>
            <dd>{date(selected.createdAt)}</dd>
            <dt>Atualizado em</dt>
            <dd>{date(selected.updatedAt)}</dd>
            {selected.approval && (
              <>
                <dt>Aprovação</dt>
                <dd>
                  {label(APPROVAL_STATUS, selected.approval.status)}; pedido por{' '}
                  {selected.approval.requestedBy}
                  {selected.approval.decidedBy && `, decidido por ${selected.approval.decidedBy}`}
                  {selected.approval.decidedAt && ` em ${date(selected.approval.decidedAt)}`}
                </dd>
              </>
            )}
          </dl>
          <Decide
            withdrawal={selected}
            onDecided={(w) => {
              setSelected(w);
              setMoved((n) => n + 1);
              void load();
            }}
          />
          {sandbox && selected.status === 'PROCESSING' && can('integrations') && (
            <SandboxResult
              withdrawal={selected}
              onDecided={(w) => {
                setSelected(w);
                setMoved((n) => n + 1);
                void load();
              }}
            />
          )}
          <button type="button" class="secondary" onClick={() => setSelected(null)}>
            Fechar
          </button>
        </Card>
      )}
    </>
  );
}

/**
 * Sandbox: the payout provider's answer for a withdrawal it is paying, given now rather than when it would by
 * itself (it completes on its own a few seconds after it was sent).
 */
function SandboxResult(props: { withdrawal: Withdrawal; onDecided: (w: Withdrawal) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const decide = async (result: 'COMPLETED' | 'REJECTED') => {
    setBusy(true);
    setError(null);
    try {
      props.onDecided(await api.simulateWithdrawalResult(props.withdrawal.uuid, result));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="actions-bar">
      <p class="notice">
        Modo de teste: o saque é concluído sozinho pouco depois de enviado, como o banco faria (o tempo é o
        que a plataforma configurou), ou escolha o resultado agora.
      </p>
      <ErrorText error={error} />
      <button type="button" disabled={busy} onClick={() => void decide('COMPLETED')}>
        Simular conclusão
      </button>
      <button type="button" class="danger" disabled={busy} onClick={() => void decide('REJECTED')}>
        Simular recusa
      </button>
    </div>
  );
}
