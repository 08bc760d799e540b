import { money } from './format';

export interface Day {
  date: string;
  salesPaidCents: number;
  withdrawalsCents: number;
}

/** One day of a chart of two amounts per day, in cents. */
export interface ChartDay {
  date: string;
  values: [number, number];
}

/** What the two bars of each day are, named for the key, the bars' tooltips and the screen reader's table. */
export interface ChartSeries {
  names: [string, string];
  short: [string, string];
  /** The screen reader's table caption. */
  caption: string;
  /** The axis line when every amount is zero. */
  empty: string;
}

// the sales' series is what paid sales credited to the balance that day, after fees (a card sale's money counts
// when it settles, a recipient's share is the recipient's): named for that, not for the sales' gross amounts
const MERCHANT: ChartSeries = {
  names: ['Créditos de vendas (líquidos)', 'Saques concluídos'],
  short: ['créditos', 'saques'],
  caption: 'Créditos de vendas no saldo (líquidos de tarifas) e saques concluídos por dia',
  empty: 'sem créditos de vendas nem saques no período',
};

const W = 600;
const H = 200;
const TOP = 4;
const BOTTOM = 1;
const SALES = '#0a6e5a';
const WITHDRAWALS = '#7a8699';

const dayMonth = (iso: string) => `${iso.slice(8, 10)}/${iso.slice(5, 7)}`;

/** The last days' credits of paid sales and completed withdrawals (the panel's overview). */
export function DailyChart({ days }: { days: Day[] }) {
  return (
    <PairedDailyChart
      days={days.map((d) => ({ date: d.date, values: [d.salesPaidCents, d.withdrawalsCents] }))}
      series={{ ...MERCHANT, caption: `${MERCHANT.caption}, últimos ${days.length} dias` }}
    />
  );
}

/**
 * Two amounts per day as paired bars, in plain SVG that scales to any width (390 px included). A screen reader
 * gets the same numbers from a table; the picture is hidden from it.
 */
export function PairedDailyChart({ days, series }: { days: ChartDay[]; series: ChartSeries }) {
  const top = Math.max(0, ...days.flatMap((d) => d.values));
  const max = Math.max(1, top);
  const slot = W / Math.max(1, days.length);
  const bar = Math.max(1, slot * 0.38);
  const height = (cents: number) => (cents / max) * (H - TOP - BOTTOM);
  const totalFirst = days.reduce((sum, d) => sum + d.values[0], 0);
  const totalSecond = days.reduce((sum, d) => sum + d.values[1], 0);
  return (
    <figure class="chart">
      <figcaption>
        <span class="key">
          <i style={{ background: SALES }} /> {series.names[0]}: {money(totalFirst)}
        </span>
        <span class="key">
          <i style={{ background: WITHDRAWALS }} /> {series.names[1]}: {money(totalSecond)}
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
                y={H - BOTTOM - height(d.values[0])}
                width={bar}
                height={height(d.values[0])}
                fill={SALES}
              >
                <title>{`${dayMonth(d.date)}: ${series.short[0]} ${money(d.values[0])}`}</title>
              </rect>
              <rect
                x={x + bar}
                y={H - BOTTOM - height(d.values[1])}
                width={bar}
                height={height(d.values[1])}
                fill={WITHDRAWALS}
              >
                <title>{`${dayMonth(d.date)}: ${series.short[1]} ${money(d.values[1])}`}</title>
              </rect>
            </g>
          );
        })}
      </svg>
      {/* labels in HTML, not in the stretched SVG, so they keep their size at any width */}
      {days.length > 0 && (
        <div class="chart-axis" aria-hidden="true">
          <span>{dayMonth(days[0]!.date)}</span>
          <span>{top > 0 ? `barra mais alta: ${money(top)}` : series.empty}</span>
          <span>{dayMonth(days[days.length - 1]!.date)}</span>
        </div>
      )}
      <table class="sr-only">
        <caption>{series.caption}</caption>
        <thead>
          <tr>
            <th scope="col">Dia</th>
            <th scope="col">{series.names[0]}</th>
            <th scope="col">{series.names[1]}</th>
          </tr>
        </thead>
        <tbody>
          {days.map((d) => (
            <tr key={d.date}>
              <th scope="row">{dayMonth(d.date)}</th>
              <td>{money(d.values[0])}</td>
              <td>{money(d.values[1])}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
