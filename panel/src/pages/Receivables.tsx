import { useEffect, useState } from 'preact/hooks';
import { api, type ReceivablesPage } from '../api';
import { day, money } from '../ui/format';
import { ErrorText, Table } from '../ui/kit';
import { Anticipate } from './Anticipate';

/** A São Paulo date (YYYY-MM-DD) as Brazilians read it: 25/12/2026. */

/** "Agenda de recebíveis": card installments by the day they reach the available balance, the next 90 days. */
export function Receivables() {
  const [page, setPage] = useState<ReceivablesPage | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    api
      .receivables({})
      .then((p) => {
        setPage(p);
        setError(null);
      })
      .catch(setError);
  }, [version]);
  const pending = page?.data.flatMap((d) => d.installments.filter((i) => !i.settled)) ?? [];
  const total = pending.reduce((sum, i) => sum + i.amount, 0);
  return (
    <>
      <h1>Agenda de recebíveis</h1>
      <p class="muted">
        Vendas com cartão: cada parcela fica disponível na data abaixo (próximos 90 dias).
        {page && ` A receber no período: ${money(total)}.`}
      </p>
      <ErrorText error={error} />
      {pending.length > 0 && <Anticipate onDone={() => setVersion((v) => v + 1)} />}
      <Table
        label="Agenda de recebíveis"
        head={['Data', 'Valor', 'Parcelas']}
        empty={
          page !== null &&
          page.data.length === 0 &&
          !error &&
          'Nenhuma parcela a receber nos próximos 90 dias.'
        }
      >
        {page?.data.map((d) => (
          <tr key={d.date}>
            <td>{day(d.date)}</td>
            <td class="money">
              <DayAmount day={d} />
            </td>
            <td class="text">
              <ul class="plain">
                {d.installments.map((i) => (
                  <li key={`${i.saleUuid}-${i.installment}`}>
                    <a href={`#/vendas/${i.saleUuid}`}>
                      parcela {i.installment}/{i.installments}
                    </a>{' '}
                    {money(i.amount)}
                    {i.settled && <span class="muted"> · disponível</span>}
                  </li>
                ))}
              </ul>
            </td>
          </tr>
        ))}
      </Table>
    </>
  );
}

/**
 * What a day still brings, as the header counts it: its installments not yet available. A day with some
 * already settled says so beside it (the API's `amount` is every installment due that day).
 */
function DayAmount({ day: d }: { day: ReceivablesPage['data'][number] }) {
  const toCome = d.installments.filter((i) => !i.settled).reduce((sum, i) => sum + i.amount, 0);
  if (toCome === d.amount) return <>{money(d.amount)}</>;
  if (toCome === 0) return <span class="muted">{money(d.amount)} já disponível</span>;
  return (
    <>
      {money(toCome)}
      <span class="muted"> · {money(d.amount - toCome)} já disponível</span>
    </>
  );
}
