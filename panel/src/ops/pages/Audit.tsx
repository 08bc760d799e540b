import { useEffect, useState } from 'preact/hooks';
import { date } from '../../ui/format';
import { Card, ErrorText, Table, useAttempt } from '../../ui/kit';
import { label } from '../../ui/labels';
import { type AuditPage, api } from '../api';
import { AUDIT_ACTION, AUDIT_ACTOR, auditTarget } from '../labels';

type Entry = AuditPage['data'][number];

/** A before or after as one line of "field: value" pairs (an object), or the value itself. */
function stateText(state: unknown): string {
  if (state === null || state === undefined) return '';
  if (typeof state !== 'object') return String(state);
  return Object.entries(state as Record<string, unknown>)
    .map(([k, v]) => `${k}: ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`)
    .join('; ');
}

/** What the action changed: before → after, as recorded. */
function Change({ e }: { e: Entry }) {
  const before = stateText(e.before);
  const after = stateText(e.after);
  if (!before && !after) return <>—</>;
  return (
    <>
      {before && <span>Antes: {before}</span>}
      {before && after && <br />}
      {after && <span>Depois: {after}</span>}
    </>
  );
}

function Rows({ rows }: { rows: Entry[] }) {
  return (
    <Table
      label="Auditoria"
      head={['Quando', 'Operador', 'O quê', 'Conta', 'Alvo', 'Mudança', 'IP']}
      empty={rows.length === 0 && 'Nada registrado.'}
    >
      {rows.map((e) => (
        <tr key={e.id}>
          <td>{date(e.at)}</td>
          <td>{AUDIT_ACTOR[e.operatorEmail] ?? e.operatorEmail}</td>
          <td>{label(AUDIT_ACTION, e.action)}</td>
          <td>
            {e.accountId ? <a href={`#/contas/${e.accountId}`}>{e.accountName ?? `#${e.accountId}`}</a> : '—'}
          </td>
          <td>{auditTarget(e.target)}</td>
          <td class="text">
            <Change e={e} />
          </td>
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
