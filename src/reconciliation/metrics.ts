import { tableCounter } from '../platform/observability/metrics.js';

/**
 * `gateway_reconciliation_discrepancies_total{kind}`: the discrepancies recorded, read from their table at scrape
 * time, so that one found by `gateway reconcile` or `gateway boletos retorno` (a process that exits) is counted
 * on every process as one found by the worker's own run is.
 */
function countDiscrepancies(): void {
  tableCounter({
    name: 'gateway_reconciliation_discrepancies_total',
    help: 'Discrepancies between the PSP (or the bank) and the gateway found by reconciliation, by kind',
    label: 'kind',
    read: (q) =>
      q.query<{ label: string; count: number }>(
        'SELECT kind AS label, count(*)::int AS count FROM reconciliation_discrepancies GROUP BY kind',
      ),
  });
}

countDiscrepancies();
