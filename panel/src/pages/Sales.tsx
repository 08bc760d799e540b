import { useEffect, useState } from 'preact/hooks';
import { api, can, type Sale } from '../api';
import { date, money } from '../ui/format';
import { ErrorText, Options, Table } from '../ui/kit';
import { label, METHODS, SALE_STATUS } from '../ui/labels';
import { usePagedList } from '../ui/paging';
import { brandName } from './CardInputs';

type Filters = { status: string; paymentMethod: string; from: string; to: string; q: string };
const EMPTY: Filters = { status: '', paymentMethod: '', from: '', to: '', q: '' };

export function Sales() {
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [applied, setApplied] = useState<Filters>(EMPTY);

  const { rows, cursor, loaded, error, load: show } = usePagedList<Sale>();
  const load = (f: Filters, after?: string) => show(api.sales({ ...f, cursor: after }), after);
  useEffect(() => {
    void load(applied);
  }, [applied]);

  const field = (name: keyof Filters) => ({
    id: `f-${name}`,
    value: filters[name],
    onInput: (e: { currentTarget: { value: string } }) =>
      setFilters({ ...filters, [name]: e.currentTarget.value }),
  });
  return (
    <>
      <h1>Vendas</h1>
      {can('sales.create') && (
        <p>
          <a class="button" href="#/cobrancas/nova">
            Nova cobrança
          </a>
        </p>
      )}
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(filters);
        }}
      >
        <div>
          <label for="f-q">Buscar</label>
          <input {...field('q')} type="search" placeholder="Nome, e-mail, CPF/CNPJ ou id" />
        </div>
        <div>
          <label for="f-status">Status</label>
          <select {...field('status')}>
            <Options labels={SALE_STATUS} all="Todos" />
          </select>
        </div>
        <div>
          <label for="f-paymentMethod">Forma de pagamento</label>
          <select {...field('paymentMethod')}>
            <Options labels={METHODS} all="Todas" />
          </select>
        </div>
        <div>
          <label for="f-from">De</label>
          <input {...field('from')} type="date" />
        </div>
        <div>
          <label for="f-to">Até</label>
          <input {...field('to')} type="date" />
        </div>
        <button type="submit">Filtrar</button>
        <a class="button secondary" href={api.exportUrl('sales', applied)} download>
          Exportar CSV
        </a>
      </form>
      <ErrorText error={error} />
      <Table
        label="Vendas"
        head={['Data', 'Cliente', 'Forma', 'Valor', 'Status', '']}
        empty={loaded && rows.length === 0 && !error && 'Nenhuma venda encontrada.'}
      >
        {rows.map((s) => (
          <tr key={s.id}>
            <td>{date(s.date)}</td>
            <td class="text">{s.customer?.name}</td>
            <td>
              {label(METHODS, s.paymentMethod)}
              {s.cardBrand && <span class="muted"> {cardText(s)}</span>}
            </td>
            <td class="money">{money(s.amount)}</td>
            <td>
              {label(SALE_STATUS, s.status)}
              {s.status === 'PAGO' && s.refundedAmount > 0 && ' · estorno parcial'}
            </td>
            <td>
              <a
                class="button secondary"
                href={`#/vendas/${s.uuid}`}
                aria-label={`Detalhes da venda ${s.id}`}
              >
                Detalhes
              </a>
            </td>
          </tr>
        ))}
      </Table>
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(applied, cursor)}>
          Carregar mais
        </button>
      )}
    </>
  );
}

/** A card sale's brand, last four digits and installments, as the list shows them: "Visa •••• 1111 · 3x". */
export function cardText(s: {
  cardBrand: string | null;
  cardLastFour: string | null;
  installments: number | null;
}) {
  const installments = (s.installments ?? 0) > 1 ? ` · ${s.installments}x` : '';
  return `${brandName(s.cardBrand!)} •••• ${s.cardLastFour ?? ''}${installments}`;
}
