import { useEffect, useState } from 'preact/hooks';
import { api, type StatementLine } from '../api';
import { date, money } from '../ui/format';
import { ErrorText, Table } from '../ui/kit';
import { label, REF_TYPES } from '../ui/labels';
import { usePagedList } from '../ui/paging';

export function Statement() {
  const [period, setPeriod] = useState({ from: '', to: '' });
  const [applied, setApplied] = useState({ from: '', to: '' });
  const { rows, cursor, loaded, error, load: show } = usePagedList<StatementLine>();
  const load = (after?: string) => show(api.statement({ ...applied, cursor: after }), after);
  useEffect(() => {
    void load();
  }, [applied]);
  return (
    <>
      <h1>Extrato</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(period);
        }}
      >
        <div>
          <label for="s-from">De</label>
          <input
            id="s-from"
            type="date"
            value={period.from}
            onInput={(e) => setPeriod({ ...period, from: e.currentTarget.value })}
          />
        </div>
        <div>
          <label for="s-to">Até</label>
          <input
            id="s-to"
            type="date"
            value={period.to}
            onInput={(e) => setPeriod({ ...period, to: e.currentTarget.value })}
          />
        </div>
        <button type="submit">Filtrar</button>
        <a class="button secondary" href={api.exportUrl('statement', applied)} download>
          Exportar CSV
        </a>
      </form>
      <ErrorText error={error} />
      <Table
        label="Extrato"
        head={[
          'Data',
          'Descrição',
          'Disponível',
          'Bloqueado',
          'A receber',
          'Saldo disponível',
          'Saldo bloqueado',
          'Saldo a receber',
        ]}
        empty={loaded && rows.length === 0 && !error && 'Nenhum lançamento no período.'}
      >
        {rows.map((l) => (
          <tr key={l.id}>
            <td>{date(l.createdAt)}</td>
            <td>
              {l.description}
              <span class="muted">
                {' '}
                · {label(REF_TYPES, l.refType)} {l.refId}
              </span>
            </td>
            <td class={l.availableDelta < 0 ? 'money neg' : 'money'}>{delta(l.availableDelta)}</td>
            <td class={l.blockedDelta < 0 ? 'money neg' : 'money'}>{delta(l.blockedDelta)}</td>
            <td class={l.receivableDelta < 0 ? 'money neg' : 'money'}>{delta(l.receivableDelta)}</td>
            <td class="money">{money(l.availableAfter)}</td>
            <td class="money">{money(l.blockedAfter)}</td>
            <td class="money">{money(l.receivableAfter)}</td>
          </tr>
        ))}
      </Table>
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Carregar mais
        </button>
      )}
    </>
  );
}

/** A line's change of one balance; a balance the line does not touch shows a dash, not R$ 0,00. */
const delta = (cents: number) => (cents === 0 ? '—' : money(cents));
