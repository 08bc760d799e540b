import { useEffect, useState } from 'preact/hooks';
import { date } from '../../ui/format';
import { Card, ErrorText, Table, useAttempt } from '../../ui/kit';
import { type AuditPage, api } from '../api';

type Entry = AuditPage['data'][number];

const ACTIONS: Record<string, string> = {
  'account.approve': 'Aprovou o cadastro',
  'account.reject': 'Recusou o cadastro',
  'account.suspend': 'Suspendeu a conta',
  'account.reactivate': 'Reativou a conta',
  'account.close': 'Encerrou a conta',
  'account.payout-hold': 'Reteve os saques',
  'account.payout-release': 'Liberou os saques',
  'withdrawal.released': 'Liberou um saque',
  'withdrawal.cancelled': 'Cancelou um saque',
  'review.approved': 'Aprovou uma análise',
  'review.rejected': 'Recusou uma análise',
  'operator.invited': 'Convidou um operador',
  'operator.invitation_resent': 'Reenviou o convite de um operador',
  'operator.enrolled': 'Concluiu o cadastro',
  'login.succeeded': 'Entrou',
  'login.failed': 'Errou a senha ou o código',
  logout: 'Saiu',
  denied: 'Tentou algo além do seu papel (recusado)',
};

function Rows({ rows }: { rows: Entry[] }) {
  return (
    <Table
      label="Auditoria"
      head={['Quando', 'Operador', 'O quê', 'Conta', 'Alvo', 'IP']}
      empty={rows.length === 0 && 'Nada registrado.'}
    >
      {rows.map((e) => (
        <tr key={e.id}>
          <td>{date(e.at)}</td>
          <td>{e.operatorEmail}</td>
          <td>{ACTIONS[e.action] ?? e.action}</td>
          <td>{e.accountId ? <a href={`#/contas/${e.accountId}`}>#{e.accountId}</a> : '—'}</td>
          <td>{e.target ?? '—'}</td>
          <td>{e.ip ?? '—'}</td>
        </tr>
      ))}
    </Table>
  );
}

function useAudit(accountId?: number) {
  const [rows, setRows] = useState<Entry[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const { error, attempt } = useAttempt();
  const load = (cursor?: string) =>
    attempt(async () => {
      const page = await api.audit({ ...(accountId ? { accountId } : {}), ...(cursor ? { cursor } : {}) });
      setRows((before) => (cursor ? [...(before ?? []), ...page.data] : page.data));
      setNext(page.nextCursor);
    });
  useEffect(() => {
    void load();
  }, []);
  return { rows, next, error, load };
}

/** Auditoria: every operator action, newest first (append-only: nobody can change it). */
export function Audit() {
  const { rows, next, error, load } = useAudit();
  return (
    <section>
      <h1>Auditoria</h1>
      <ErrorText error={error} />
      {rows && <Rows rows={rows} />}
      {next && (
        <button type="button" class="secondary" onClick={() => load(next)}>
          Mais registros
        </button>
      )}
    </section>
  );
}

/** One account's part of the audit log (its page). */
export function AccountAudit({ accountId }: { accountId: number }) {
  const { rows, error } = useAudit(accountId);
  return (
    <Card title="Auditoria da conta">
      <ErrorText error={error} />
      {rows && <Rows rows={rows} />}
    </Card>
  );
}
