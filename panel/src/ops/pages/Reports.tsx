import { useEffect, useState } from 'preact/hooks';
import { type ChartDay, PairedDailyChart } from '../../ui/DailyChart';
import { day, money, saoPauloDay } from '../../ui/format';
import { ErrorText, Table, useAttempt } from '../../ui/kit';
import { label } from '../../ui/labels';
import { api, type Report } from '../api';
import { METHOD } from '../labels';

const percent = (text: string) => `${text.replace('.', ',')} %`;

/** TPV and fees per day, every day from `from` to `to` (a day with no paid sale is a zero, not a gap). */
function perDay(report: Report): ChartDay[] {
  const sums = new Map<string, [number, number]>();
  for (const r of report.rows) {
    const [tpv, fees] = sums.get(r.day) ?? [0, 0];
    sums.set(r.day, [tpv + r.tpvCents, fees + r.feeCents]);
  }
  const days: ChartDay[] = [];
  const end = Date.parse(`${report.to}T00:00:00Z`);
  for (let t = Date.parse(`${report.from}T00:00:00Z`); t <= end && days.length < 400; t += 86_400_000) {
    const date = new Date(t).toISOString().slice(0, 10);
    days.push({ date, values: sums.get(date) ?? [0, 0] });
  }
  return days;
}

/** Relatórios: paid sales per day and method (or per account): TPV, count, fees earned, take rate; CSV. */
export function Reports() {
  const [from, setFrom] = useState(saoPauloDay(29));
  const [to, setTo] = useState(saoPauloDay(0));
  const [by, setBy] = useState<'method' | 'account'>('method');
  const [report, setReport] = useState<Report | null>(null);
  const { error, attempt } = useAttempt();
  const load = () => attempt(async () => setReport(await api.report({ from, to, by })));
  useEffect(() => {
    void load();
  }, []);
  const byAccount = by === 'account';
  return (
    <section>
      <h1>Relatórios</h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void load();
        }}
      >
        <div>
          <label for="from">De</label>
          <input
            id="from"
            type="date"
            required
            value={from}
            onInput={(e) => setFrom(e.currentTarget.value)}
          />
        </div>
        <div>
          <label for="to">Até</label>
          <input id="to" type="date" required value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        </div>
        <div>
          <label for="by">Agrupar por</label>
          <select id="by" value={by} onChange={(e) => setBy(e.currentTarget.value as 'method' | 'account')}>
            <option value="method">Dia e forma de pagamento</option>
            <option value="account">Dia, forma e conta</option>
          </select>
        </div>
        <button type="submit">Gerar</button>
        <a class="button secondary" href={api.reportCsvUrl({ from, to, by })} download>
          Baixar CSV
        </a>
      </form>
      <ErrorText error={error} />
      {report && (
        <>
          <dl class="detail totals">
            <dt>TPV</dt>
            <dd>{money(report.totals.tpvCents)}</dd>
            <dt>Vendas pagas</dt>
            <dd>{report.totals.salesCount.toLocaleString('pt-BR')}</dd>
            <dt>Tarifas recebidas</dt>
            <dd>{money(report.totals.feeCents)}</dd>
            <dt>Take rate</dt>
            <dd>{percent(report.totals.takeRatePercent)}</dd>
            {report.revenue && (
              <>
                <dt>Receita total</dt>
                <dd>
                  {money(report.revenue.totalCents)}{' '}
                  <span class="hint">
                    (vendas {money(report.revenue.salesCents)}, saques{' '}
                    {money(report.revenue.withdrawalsCents)}, antecipações{' '}
                    {money(report.revenue.anticipationsCents)}, devolvidas em estornos{' '}
                    {money(report.revenue.refundsCents)})
                  </span>
                </dd>
              </>
            )}
          </dl>
          <PairedDailyChart
            days={perDay(report)}
            series={{
              names: ['TPV', 'Tarifas recebidas'],
              short: ['TPV', 'tarifas'],
              caption: `TPV e tarifas recebidas por dia, de ${day(report.from)} a ${day(report.to)}`,
              empty: 'sem vendas pagas no período',
            }}
          />
          <Table
            label="Relatório diário"
            head={['Dia', 'Forma', ...(byAccount ? ['Conta'] : []), 'Vendas', 'TPV', 'Tarifas', 'Take rate']}
            empty={report.rows.length === 0 && 'Nenhuma venda paga no período.'}
          >
            {report.rows.map((r) => (
              <tr key={`${r.day}-${r.paymentMethod}-${r.accountId ?? ''}`}>
                <td>{day(r.day)}</td>
                <td>{label(METHOD, r.paymentMethod)}</td>
                {byAccount && (
                  <td>
                    <a href={`#/contas/${r.accountId}`}>{r.accountName || `#${r.accountId}`}</a>
                  </td>
                )}
                <td>{r.salesCount.toLocaleString('pt-BR')}</td>
                <td>{money(r.tpvCents)}</td>
                <td>{money(r.feeCents)}</td>
                <td>{percent(r.takeRatePercent)}</td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </section>
  );
}
