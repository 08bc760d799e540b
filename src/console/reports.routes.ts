import { accountNames } from '../accounts/index.js';
import { revenueByDay } from '../ledger/index.js';
import { validation } from '../platform/errors/app-error.js';
import { sendCsv } from '../platform/http/csv.js';
import { EnvelopeErrorBody, errorAnswers } from '../platform/http/error-schemas.js';
import type { Http } from '../platform/http/types.js';
import { dailyTotals } from '../sales/index.js';
import type { ConsoleRouteDeps } from './accounts.routes.js';
import { Report, ReportQuery } from './schemas.js';
import { type ReportRowView, reportView } from './views.js';

const MAX_DAYS = 366;

function checkPeriod(from: string, to: string): void {
  const a = Date.parse(`${from}T00:00:00Z`);
  const b = Date.parse(`${to}T00:00:00Z`);
  if (Number.isNaN(a) || Number.isNaN(b) || new Date(a).toISOString().slice(0, 10) !== from) {
    throw validation('from and to must be real days, YYYY-MM-DD');
  }
  if (new Date(b).toISOString().slice(0, 10) !== to)
    throw validation('from and to must be real days, YYYY-MM-DD');
  if (b < a) throw validation('from must not be after to');
  if ((b - a) / 86_400_000 >= MAX_DAYS) throw validation(`a report covers at most ${MAX_DAYS} days`);
}

/** What the company earned: paid sales per day and method (or per account), TPV, fees and take rate; CSV too. */
export async function consoleReportRoutes(app: Http, deps: ConsoleRouteDeps): Promise<void> {
  app.get(
    '/api/ops/reports/daily',
    {
      config: { errorShape: 'envelope', opsRole: 'finance' },
      onRequest: deps.requireOperator,
      schema: {
        tags: ['console'],
        summary:
          'Paid sales per day (America/Sao_Paulo) and method — or per account with by=account — with TPV, fees earned and take rate; format=csv for a spreadsheet',
        querystring: ReportQuery,
        response: {
          200: Report,
          ...errorAnswers(EnvelopeErrorBody, [400, 401, 403]),
        },
      },
    },
    async (request, reply) => {
      const { from, to, format, by, accountId } = request.query;
      checkPeriod(from, to);
      const byAccount = by === 'account';
      const rows = await dailyTotals(deps.db, {
        from,
        to,
        accountId: accountId ? Number(accountId) : null,
        byAccount,
      });
      const names = byAccount
        ? await accountNames(deps.db, [...new Set(rows.map((r) => r.accountId!))])
        : new Map<number, string>();
      // every fee earned, by source (the rows are sales' fees alone): the platform's, not one account's
      const revenue = accountId ? null : await revenueByDay(deps.db, from, to);
      const report = reportView(from, to, rows, names, revenue);
      if (format !== 'csv') return report;
      return sendCsv<ReportRowView>(reply, `relatorio-${from}-${to}.csv`, toAsync(report.rows), [
        { header: 'dia', value: (r) => r.day },
        { header: 'forma', value: (r) => r.paymentMethod },
        ...(byAccount
          ? [
              { header: 'conta', value: (r: ReportRowView) => r.accountId ?? null },
              { header: 'nome', value: (r: ReportRowView) => r.accountName ?? null },
            ]
          : []),
        { header: 'vendas', value: (r) => r.salesCount },
        { header: 'tpv_centavos', value: (r) => r.tpvCents },
        { header: 'tarifas_centavos', value: (r) => r.feeCents },
        { header: 'take_rate_pct', value: (r) => r.takeRatePercent },
      ]);
    },
  );
}

async function* toAsync<T>(rows: T[]): AsyncGenerator<T> {
  yield* rows;
}
