import { useEffect, useState } from 'preact/hooks';
import { date, money } from '../../ui/format';
import { Card, ErrorText, Table, useAttempt } from '../../ui/kit';
import { label, WITHDRAWAL_STATUS } from '../../ui/labels';
import { type AuditPage, api, type RiskRuleInput } from '../api';
import {
  ACCOUNT_STATUS,
  ANTICIPATION_STATUS,
  AUDIT_ACTION,
  AUDIT_ACTOR,
  auditTarget,
  DISCREPANCY_KIND,
  OPERATOR_ROLE,
  OPERATOR_STATUS,
  RISK_ACTION,
} from '../labels';
import { whenText } from '../risk-words';

type Entry = AuditPage['data'][number];

/** The recorded fields' names as the console says them (others as recorded). */
const FIELD: Record<string, string> = {
  status: 'situação',
  reason: 'motivo',
  feePlan: 'plano',
  role: 'papel',
  email: 'e-mail',
  sale: 'venda',
  cardPayments: 'cartões',
  payouts: 'saques',
  payoutHold: 'saques retidos',
  cardPaymentsPaused: 'cartões pausados',
  name: 'nome',
  pixPercent: 'PIX',
  pixFixedCents: 'PIX fixo',
  boletoFixedCents: 'boleto',
  creditPercent: 'crédito',
  debitPercent: 'débito',
  anticipationMonthlyPercent: 'antecipação ao mês',
  cashoutFixedCents: 'saque',
  from: 'de',
  to: 'até',
  resolution: 'resolução',
  kind: 'tipo',
  amount: 'valor',
  e2eid: 'Pix (E2E)',
  when: 'condições',
  action: 'ação',
  createdAt: 'criada em',
  createdBy: 'por',
  rule: 'regra nº',
  ruleName: 'regra',
  invitationsSentEnded: 'convites enviados por ele encerrados',
};

/** A plan's credit rates by installments ({"1": "3.49", "2-6": …}) as the fee plans page says them. */
const INSTALLMENTS: Record<string, string> = { '1': 'à vista', '2-6': '2 a 6x', '7-12': '7 a 12x' };

/** Statuses and values the audit records, in words (accounts, withdrawals, anticipations, reviews, roles). */
const VALUE: Record<string, string> = {
  ...WITHDRAWAL_STATUS,
  ...ACCOUNT_STATUS,
  ...OPERATOR_ROLE,
  ...ANTICIPATION_STATUS,
  open: 'Aberta',
  resumed: 'Retomados',
  held: 'Retidos',
  released: 'Liberados',
};

/** One recorded value: a plan or anything named by its name, cents as R$, a status in words. */
function valueText(key: string, v: unknown): string {
  if (v === null || v === undefined) return '—';
  // a risk rule's conditions and action, as the rules page says them
  if (key === 'when' && typeof v === 'object') return whenText(v as RiskRuleInput['when']);
  if (key === 'action' && typeof v === 'string') return label(RISK_ACTION, v);
  if (typeof v === 'object' && typeof (v as { name?: unknown }).name === 'string') {
    return (v as { name: string }).name;
  }
  if (typeof v === 'object' && /Percent$/.test(key)) {
    return Object.entries(v as Record<string, unknown>)
      .map(([n, rate]) => `${INSTALLMENTS[n] ?? n} ${valueText(key, rate)}`)
      .join(', ');
  }
  if (typeof v === 'object') return JSON.stringify(v);
  if (typeof v === 'boolean') return v ? 'sim' : 'não';
  if (typeof v === 'number' && (/Cents$/.test(key) || key === 'amount')) return money(v);
  // an instant recorded in UTC (a reconciliation's window), said in Brasília time as every time here
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(v)) return date(v);
  if (key === 'kind' && typeof v === 'string' && DISCREPANCY_KIND[v]) return DISCREPANCY_KIND[v];
  // a discrepancy resolved by hand: the note, as the Conciliação page shows it
  if (key === 'resolution' && typeof v === 'string') return v.replace(/^operator: /, '');
  if (typeof v === 'string' && /Percent$/.test(key) && /^\d+(\.\d+)?$/.test(v))
    return `${v.replace('.', ',')} %`;
  return typeof v === 'string' ? (VALUE[v] ?? v) : String(v);
}

/** A before or after as one line of "field: value" pairs (an object), or the value itself. */
function stateText(state: unknown, action: string): string {
  if (state === null || state === undefined) return '';
  if (typeof state !== 'object') return String(state);
  // an operator's status in the operators' words (an account's "active" is "Ativa")
  const said = (k: string, v: unknown) =>
    k === 'status' && action.startsWith('operator.') && typeof v === 'string'
      ? label(OPERATOR_STATUS, v)
      : valueText(k, v);
  // the database keeps a record's keys in its own order (shortest first): a period reads from its start
  const first = (k: string) => (k === 'from' ? 0 : k === 'to' ? 1 : 2);
  return Object.entries(state as Record<string, unknown>)
    .sort(([a], [b]) => first(a) - first(b))
    .map(([k, v]) => `${FIELD[k] ?? k}: ${said(k, v)}`)
    .join('; ');
}

/** What the action changed: before → after, as recorded. */
function Change({ e }: { e: Entry }) {
  // a refusal changed nothing: it says why it was refused
  if (e.action === 'denied') return <>Nada mudou: o papel do operador não permite isso.</>;
  const before = stateText(e.before, e.action);
  const after = stateText(e.after, e.action);
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
