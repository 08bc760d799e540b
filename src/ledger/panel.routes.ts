import { Type } from 'typebox';
import { accountOf } from '../auth/index.js';
import type { Db, Queryable } from '../platform/db/db.js';
import { validation } from '../platform/errors/app-error.js';
import { type CsvColumn, reais, sendCsv } from '../platform/http/csv.js';
import { EnvelopeErrorBody } from '../platform/http/error-schemas.js';
import type { AuthHook, Http } from '../platform/http/types.js';
import { parsePage } from '../platform/paging/pagination.js';
import { toSaoPaulo } from '../platform/time/sao-paulo.js';
import { balanceReads } from './coalesced-balances.js';
import { dailyTotals } from './daily.js';
import { receivablesBetween, receivablesPeriod } from './receivables.js';
import {
  DailyTotals,
  PanelBalance,
  StatementQuery as Query,
  ReceivablesPage,
  ReceivablesQuery,
  StatementPage,
} from './schemas.js';
import { Statement, type StatementLine } from './statement.js';
import { STATEMENT_REFERENCES } from './statement-words.js';

/** "Venda", "Contestação": the panel's word for the line's reference, capitalised as a cell's first word. */
const referenceWord = (refType: string): string => {
  const word = STATEMENT_REFERENCES[refType] ?? refType;
  return word.charAt(0).toUpperCase() + word.slice(1);
};

const CSV: CsvColumn<StatementLine>[] = [
  { header: 'id', value: (r) => r.id },
  { header: 'data', value: (r) => toSaoPaulo(new Date(r.createdAt)) },
  { header: 'descricao', value: (r) => r.description },
  { header: 'referencia', value: (r) => `${referenceWord(r.refType)} ${r.refId}` },
  { header: 'disponivel', value: (r) => reais(r.availableDelta) },
  { header: 'bloqueado', value: (r) => reais(r.blockedDelta) },
  { header: 'a_receber', value: (r) => reais(r.receivableDelta) },
  { header: 'saldo_disponivel', value: (r) => reais(r.availableAfter) },
  { header: 'saldo_bloqueado', value: (r) => reais(r.blockedAfter) },
  { header: 'saldo_a_receber', value: (r) => reais(r.receivableAfter) },
];

function dayCount(raw: string | undefined): number {
  if (raw === undefined) return 30;
  const days = Number(raw);
  if (!/^\d{1,2}$/.test(raw) || days < 1 || days > 90)
    throw validation('days must be an integer from 1 to 90');
  return days;
}

/** The panel's balance and statement (extrato), with its CSV export. */
export async function ledgerPanelRoutes(
  app: Http,
  // `reads`: the statement, which a read replica may serve; the balance stays on the primary
  deps: { db: Db; reads: Queryable; requireSession: AuthHook; cursorKey: Buffer },
): Promise<void> {
  const common = {
    config: { errorShape: 'envelope' as const, permission: 'money.view' as const },
    onRequest: deps.requireSession,
  };
  const statement = new Statement(deps.cursorKey);
  const balanceOf = balanceReads(deps.db);

  app.get(
    '/api/balance',
    {
      ...common,
      schema: {
        tags: ['panel'],
        summary: 'Balance in cents, with the card money still to settle (receivable)',
        response: { 200: PanelBalance, 401: EnvelopeErrorBody },
      },
    },
    async (request) => balanceOf(accountOf(request)),
  );

  app.get(
    '/api/panel/receivables',
    {
      ...common,
      schema: {
        tags: ['panel'],
        summary: "Card installments by the date they reach available (the panel's Agenda de recebíveis)",
        querystring: ReceivablesQuery,
        response: { 200: ReceivablesPage, 400: EnvelopeErrorBody, 401: EnvelopeErrorBody },
      },
    },
    async (request) => {
      const period = receivablesPeriod(request.query.from, request.query.to);
      return {
        ...period,
        data: await receivablesBetween(deps.db, accountOf(request), period.from, period.to),
      };
    },
  );

  app.get(
    '/api/overview/daily',
    {
      ...common,
      schema: {
        tags: ['panel'],
        summary:
          "The last days' paid sales and completed withdrawals, per São Paulo day (the overview's chart)",
        querystring: Type.Object({
          days: Type.Optional(Type.String({ description: '1..90, default 30' })),
        }),
        response: { 200: DailyTotals, 400: EnvelopeErrorBody, 401: EnvelopeErrorBody },
      },
    },
    async (request) => ({
      days: await dailyTotals(deps.db, accountOf(request), dayCount(request.query.days)),
    }),
  );

  app.get(
    '/api/statement',
    {
      ...common,
      schema: {
        tags: ['panel'],
        summary: 'Ledger lines, newest first, with the balances right after each',
        querystring: Query,
        response: {
          200: StatementPage,
          400: EnvelopeErrorBody,
          401: EnvelopeErrorBody,
        },
      },
    },
    async (request) => {
      const { limit, from, to } = parsePage({ ...request.query, cursor: undefined });
      return statement.page(deps.reads, accountOf(request), {
        limit,
        from,
        to,
        cursor: request.query.cursor,
      });
    },
  );

  app.get(
    '/api/statement/export.csv',
    {
      ...common,
      schema: {
        tags: ['panel'],
        summary: 'Every statement line in the period, as CSV',
        querystring: Type.Omit(Query, ['limit', 'cursor']),
        response: { 200: Type.String(), 400: EnvelopeErrorBody, 401: EnvelopeErrorBody },
      },
    },
    async (request, reply) => {
      const { from, to } = parsePage({ ...request.query, cursor: undefined });
      return sendCsv(reply, 'extrato.csv', statement.all(deps.reads, accountOf(request), { from, to }), CSV);
    },
  );
}
