import { type Command, UsageError } from '../platform/cli/command.js';
import type { Discrepancy } from './discrepancies.data.js';
import type { Report } from './reconcile.js';
import { parseInstant, windowProblem } from './window.js';

// the command loads the module's code when it runs: the CLI's help and usage load no more than this file
const discrepancies = () => import('./discrepancies.data.js');

/** --name as an ISO 8601 instant (without an offset, São Paulo time). */
function instant(values: Record<string, string | boolean | undefined>, name: string): Date {
  const raw = values[name];
  if (typeof raw !== 'string' || raw === '') throw new UsageError(`--${name} is required (ISO 8601)`);
  const at = parseInstant(raw);
  if (typeof at === 'string') throw new UsageError(`--${name} ${at}`);
  return at;
}

const line = (d: Discrepancy) =>
  `${d.kind} e2eid=${d.e2eid} txid=${d.txid ?? '-'} amount=${d.amount} ${d.detail}`;

function reportText(r: Report): string {
  return [
    `${r.from} → ${r.to}: ${r.received} received, ${r.matched} matched, ${r.creditedNow} credited now, ` +
      `${r.refundedNow} refunded now, ${r.discrepancies.length} discrepancies`,
    ...r.discrepancies.map(line),
  ].join('\n');
}

export const reconciliationCommands: Command[] = [
  {
    path: ['reconcile'],
    usage:
      'gateway reconcile --from ISO --to ISO | --discrepancies [--all] | --resolve ID --note TEXT [--json]',
    summary:
      "Reconciles the Pix the PSP received in a window with the gateway's sales (PIX_PROCESSOR=bcb): credits what " +
      'the gateway missed, applies devoluções, records discrepancies; or lists the discrepancies kept.',
    example: 'gateway reconcile --from 2026-11-24T00:00:00-03:00 --to 2026-11-25T00:00:00-03:00 --json',
    optionHelp: {
      from: 'start of the window (ISO 8601; without an offset, São Paulo time)',
      to: 'end of the window, excluded',
      discrepancies: 'list the discrepancies kept (unresolved), newest first, instead of reconciling',
      all: 'with --discrepancies: resolved ones too',
      resolve:
        "mark the open discrepancy ID resolved (e.g. a duplicate payment returned to its payer outside the PSP's listing)",
      note: 'with --resolve: what was done, kept with the discrepancy',
    },
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      discrepancies: { type: 'boolean' },
      all: { type: 'boolean' },
      resolve: { type: 'string' },
      note: { type: 'string' },
    },
    settlesSales: true,
    async run({ db, config }, values) {
      if (values.resolve !== undefined) {
        const id = String(values.resolve);
        if (!/^[1-9]\d{0,15}$/.test(id)) throw new UsageError('--resolve takes a discrepancy id');
        const note = String(values.note ?? '').trim();
        if (!note) throw new UsageError('--resolve needs --note: what was done about it');
        const { resolveDiscrepancy } = await import('./service.js');
        await resolveDiscrepancy(db, Number(id), note, 'cli');
        return {
          result: { id: Number(values.resolve), resolved: true },
          text: `discrepancy ${values.resolve} resolved`,
        };
      }
      if (values.discrepancies) {
        if (values.from || values.to) throw new UsageError('--discrepancies takes no window');
        const { listDiscrepancies } = await discrepancies();
        const rows = await listDiscrepancies(db, { all: values.all === true });
        // each with the id --resolve takes, and whether it is resolved (listed with --all)
        const text =
          rows.length === 0
            ? 'no discrepancy'
            : rows
                .map(
                  (d) =>
                    `#${d.id} ${d.foundAt} ${d.resolvedAt ? `resolved ${d.resolvedAt} (${d.resolution ?? ''}) ` : ''}${line(d)}`,
                )
                .join('\n');
        return { result: { discrepancies: rows }, text };
      }
      const from = instant(values, 'from');
      const to = instant(values, 'to');
      const problem = windowProblem(from, to);
      if (problem) throw new UsageError(problem);
      if (!config.bcb) throw new Error('reconciliation needs PIX_PROCESSOR=bcb and its PSP settings');
      const [{ PixApiClient }, { Queue }, { createLogger }, { SaleSettler }, { reconcileWindow }] =
        await Promise.all([
          import('../payment-standards/index.js'),
          import('../platform/jobs/queue.js'),
          import('../platform/observability/logger.js'),
          import('../sales/index.js'),
          import('./due-runs.js'),
        ]);
      const client = new PixApiClient(config.bcb);
      const log = createLogger(config.logLevel);
      const queue = await Queue.start(db, log, null);
      try {
        const report = await reconcileWindow(
          { db, queue, settler: new SaleSettler(db, queue), client, log },
          from,
          to,
        );
        return { result: report, text: reportText(report) };
      } finally {
        await queue.stop();
        await client.close();
      }
    },
  },
];
