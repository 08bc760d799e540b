import { money } from './format';

export interface Day {
  date: string;
  salesPaidCents: number;
  withdrawalsCents: number;
}

const W = 600;
const H = 200;
const TOP = 4;
const BOTTOM = 1;
const SALES = '#0a6e5a';
const WITHDRAWALS = '#7a8699';

const dayMonth = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}`;

/**
 * The last days' paid sales and completed withdrawals as paired bars, in plain SVG that scales to any width
 * (390 px included). A screen reader gets the same numbers from a table; the picture is hidden from it.
 */
export function DailyChart({ days }: { days: Day[] }) {
  const top = Math.max(0, ...days.flatMap((d) => [d.salesPaidCents, d.withdrawalsCents]));
  const max = Math.max(1, top);
  const slot = W / Math.max(1, days.length);
  const bar = Math.max(1, slot * 0.38);
  const height = (cents: number) => (cents / max) * (H - TOP - BOTTOM);
  const totalSales = days.reduce((sum, d) => sum + d.salesPaidCents, 0);
  const totalWithdrawals = days.reduce((sum, d) => sum + d.withdrawalsCents, 0);
  return (
    <figure class="chart">
      <figcaption>
        <span class="key">
          <i style={{ background: SALES }} /> Vendas pagas: {money(totalSales)}
        </span>
        <span class="key">
          <i style={{ background: WITHDRAWALS }} /> Saques concluídos: {money(totalWithdrawals)}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
        <line
          x1="0"
          x2={W}
          y1={H - BOTTOM}
          y2={H - BOTTOM}
          stroke="#dde2ea"
          vector-effect="non-scaling-stroke"
        />
        {days.map((d, i) => {
          const x = i * slot + (slot - 2 * bar) / 2;
          return (
            <g key={d.date}>
              <rect
                x={x}
                y={H - BOTTOM - height(d.salesPaidCents)}
                width={bar}
                height={height(d.salesPaidCents)}
                fill={SALES}
              >
                <title>{`${dayMonth(d.date)}: vendas ${money(d.salesPaidCents)}`}</title>
              </rect>
              <rect
                x={x + bar}
                y={H - BOTTOM - height(d.withdrawalsCents)}
                width={bar}
                height={height(d.withdrawalsCents)}
                fill={WITHDRAWALS}
              >
                <title>{`${dayMonth(d.date)}: saques ${money(d.withdrawalsCents)}`}</title>
              </rect>
            </g>
          );
        })}
      </svg>
      {/* labels in HTML, not in the stretched SVG, so they keep their size at any width */}
      {days.length > 0 && (
        <div class="chart-axis" aria-hidden="true">
          <span>{dayMonth(days[0]!.date)}</span>
          <span>{top > 0 ? `barra mais alta: ${money(top)}` : 'sem vendas pagas nem saques no período'}</span>
          <span>{dayMonth(days[days.length - 1]!.date)}</span>
        </div>
      )}
      <table class="sr-only">
        <caption>Vendas pagas e saques concluídos por dia, últimos {days.length} dias</caption>
        <thead>
          <tr>
            <th scope="col">Dia</th>
            <th scope="col">Vendas pagas</th>
            <th scope="col">Saques concluídos</th>
          </tr>
        </thead>
        <tbody>
          {days.map((d) => (
            <tr key={d.date}>
              <th scope="row">{dayMonth(d.date)}</th>
              <td>{money(d.salesPaidCents)}</td>
              <td>{money(d.withdrawalsCents)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
